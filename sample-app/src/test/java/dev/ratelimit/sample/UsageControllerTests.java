package dev.ratelimit.sample;

import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RateLimitStoreException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code GET /api/usage} while the quota store cannot be read: a 503 that says so, not a 500.
 */
class UsageControllerTests {

	@Test
	void usageWhileTheStoreIsDownIsServiceUnavailable() {
		RateLimitStore down = new RateLimitStore() {

			@Override
			public List<Decision> evaluate(List<RateLimitCheck> checks) {
				throw new RateLimitStoreException("Redis did not answer within 100ms", null);
			}

			@Override
			public List<Decision> peek(List<RateLimitCheck> checks) {
				throw new RateLimitStoreException("Redis did not answer within 100ms", null);
			}

			@Override
			public void reset(RateLimitPolicy policy, String subject) {
				throw new RateLimitStoreException("Redis did not answer within 100ms", null);
			}

		};
		RateLimitRules rules = new RateLimitRules(List.of(RateLimitRule
			.builder(UsageController.QUOTA, RateLimitPolicy.calendar(UsageController.QUOTA, 100,
					CalendarPeriod.of(CalendarPeriod.Unit.DAY, ZoneOffset.UTC)))
			.build()));
		SampleProperties properties = new SampleProperties(Map.of("demo-free-key", "free"), null);
		StaticListableBeanFactory beans = new StaticListableBeanFactory(
				Map.of("usage", new RateLimitUsage(rules, down, Clock.systemUTC())));
		UsageController controller = new UsageController(beans.getBeanProvider(RateLimitUsage.class),
				new ApiKeyPlans(properties, "X-API-Key"));
		assertThatExceptionOfType(ResponseStatusException.class).isThrownBy(() -> controller.usage("demo-free-key", UsageController.QUOTA))
			.satisfies((ex) -> {
				assertThat(ex.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
				assertThat(ex.getReason()).contains("quota store is unavailable");
			});
	}

}
