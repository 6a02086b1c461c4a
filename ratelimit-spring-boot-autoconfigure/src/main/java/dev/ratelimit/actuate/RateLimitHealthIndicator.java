package dev.ratelimit.actuate;

import java.util.Locale;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.resilience.StoreState;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of rate limiting. Always UP while decisions can be made: a Redis outage with the fallback deciding is
 * reported in the details ({@code state: fallback}, the circuit state), not as DOWN, because the application still
 * works.
 */
public class RateLimitHealthIndicator implements HealthIndicator {

	private final RateLimiter limiter;

	private final String store;

	public RateLimitHealthIndicator(RateLimiter limiter, String store) {
		this.limiter = limiter;
		this.store = store;
	}

	@Override
	public Health health() {
		Health.Builder health = Health.up().withDetail("store", this.store);
		if (this.limiter instanceof ResilientRateLimiter resilient) {
			health.withDetail("state", resilient.state().name().toLowerCase(Locale.ROOT))
				.withDetail("circuit", resilient.circuitBreaker().getState().name().toLowerCase(Locale.ROOT));
		}
		else {
			health.withDetail("state", StoreState.LOCAL.name().toLowerCase(Locale.ROOT));
		}
		return health.build();
	}

}
