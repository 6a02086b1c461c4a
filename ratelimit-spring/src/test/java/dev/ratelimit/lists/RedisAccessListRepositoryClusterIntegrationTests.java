package dev.ratelimit.lists;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisClusterExtension;
import dev.ratelimit.test.redis.RedisClusterTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lists' Redis repository and synchronizer on a Redis Cluster: the write script touches only keys of the one
 * hash tag (no CROSSSLOT), the bound and the expiry hold, and a change published on one connection reaches another
 * instance's subscription, wherever the cluster routes it.
 */
@RedisClusterTest
class RedisAccessListRepositoryClusterIntegrationTests {

	@Test
	void entriesAreBoundedExpireAndReachAnotherInstanceThroughTheCluster() {
		LettuceConnectionFactory first = LettuceFactories.cluster(RedisClusterExtension.shared());
		LettuceConnectionFactory second = LettuceFactories.cluster(RedisClusterExtension.shared());
		String prefix = "rl-lists-" + System.nanoTime();
		AccessListRepository writer = new RedisAccessListRepository(first, prefix, 2, Clock.systemUTC()::millis);
		AccessListRepository reader = new RedisAccessListRepository(second, prefix, 2, Clock.systemUTC()::millis);
		RateLimitLists other = new RateLimitLists(List.of(), List.of(), 403, Clock.systemUTC(),
				() -> RateLimitListener.NONE);
		AccessListSynchronizer synchronizer = new AccessListSynchronizer(reader, other, Duration.ofHours(1), second,
				RedisAccessListRepository.channel(prefix));
		synchronizer.start();
		try {
			long version = writer.version();
			assertThat(writer.add(ListKind.DENY, ListEntry.parse("203.0.113.0/24"), Duration.ofMillis(300))).isTrue();
			assertThat(writer.add(ListKind.DENY, ListEntry.parse("user-13"), null)).isTrue();
			assertThat(writer.add(ListKind.DENY, ListEntry.parse("user-14"), null)).as("full").isFalse();
			assertThat(writer.add(ListKind.ALLOW, ListEntry.parse("2001:db8::/32").with(Set.of("api"), 0), null))
				.isTrue();
			assertThat(writer.version()).isGreaterThan(version);
			await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
				.until(() -> other.runtime(ListKind.DENY).size() == 2 && other.runtime(ListKind.ALLOW).size() == 1);
			assertThat(other.runtime(ListKind.ALLOW).get(0).rules()).containsExactly("api");
			assertThat(other.denial("api", "x", other.address(null))).isNull();
			await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
				.until(() -> reader.load().get(ListKind.DENY).size() == 1);
			assertThat(writer.add(ListKind.DENY, ListEntry.parse("user-14"), null)).as("the lapsed entry made room")
				.isTrue();
			assertThat(writer.remove(ListKind.DENY, "user-13")).isTrue();
			assertThat(writer.remove(ListKind.DENY, "user-13")).isFalse();
			await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
				.until(() -> other.runtime(ListKind.DENY).stream().map(ListEntry::text).toList().equals(List.of("user-14")));
		}
		finally {
			synchronizer.stop();
			first.destroy();
			second.destroy();
		}
	}

}
