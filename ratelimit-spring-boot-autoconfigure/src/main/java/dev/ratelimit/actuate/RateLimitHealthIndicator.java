package dev.ratelimit.actuate;

import java.util.Locale;

import dev.ratelimit.resilience.StoreStatus;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of rate limiting. Always UP while decisions can be made: a Redis outage with the fallback deciding is
 * reported in the details ({@code state: fallback}, the circuit state), not as DOWN, because the application still
 * works.
 */
public class RateLimitHealthIndicator implements HealthIndicator {

	private final StoreStatus status;

	private final String store;

	/**
	 * @param status who decides
	 * @param store the store's name as shown
	 */
	public RateLimitHealthIndicator(StoreStatus status, String store) {
		this.status = status;
		this.store = store;
	}

	@Override
	public Health health() {
		Health.Builder health = Health.up()
			.withDetail("store", this.store)
			.withDetail("state", this.status.state().name().toLowerCase(Locale.ROOT));
		CircuitBreaker.State circuit = this.status.circuitState();
		if (circuit != null) {
			health.withDetail("circuit", circuit.name().toLowerCase(Locale.ROOT));
		}
		return health.build();
	}

}
