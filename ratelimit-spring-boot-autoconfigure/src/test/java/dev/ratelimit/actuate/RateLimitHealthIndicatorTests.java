package dev.ratelimit.actuate;

import java.util.List;
import java.util.Map;

import dev.ratelimit.store.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitHealthIndicatorTests {

	@Test
	void aClusterWithOneFailedMasterIsUpAndNamesIt() {
		Health health = new RateLimitHealthIndicator(FixedStoreStatus.clusterWithOneFailedMaster(), "redis").health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("state", "partial")
			.containsEntry("circuit", "open")
			.containsEntry("unavailableNodes", List.of("127.0.0.1:7002 slots 5461-10921"));
		assertThat(health.getDetails().get("nodes")).isEqualTo(Map.of("a1",
				Map.of("node", "127.0.0.1:7001 slots 0-5460", "state", "redis", "circuit", "closed"), "b2",
				Map.of("node", "127.0.0.1:7002 slots 5461-10921", "state", "fallback", "circuit", "open")));
	}

	@Test
	void aStoreOnOneServerShowsNoNodes() {
		Health health = new RateLimitHealthIndicator(
				new FixedStoreStatus(StoreState.REDIS, CircuitBreaker.State.CLOSED, Map.of()),
				"redis").health();
		assertThat(health.getDetails()).containsOnlyKeys("store", "state", "circuit");
	}

}
