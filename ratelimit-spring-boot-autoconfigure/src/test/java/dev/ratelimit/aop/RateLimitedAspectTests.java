package dev.ratelimit.aop;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimited;
import dev.ratelimit.autoconfigure.RateLimitAopAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An annotation whose key or cost expression throws for some arguments falls back like a rule does, and is counted:
 * the call is limited, never failed.
 */
class RateLimitedAspectTests {

	private final List<String> failures = new ArrayList<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitAopAutoConfiguration.class,
				AopAutoConfiguration.class))
		.withBean(Orders.class)
		.withBean(RateLimitListener.class, () -> new RateLimitListener() {

			@Override
			public void onResolutionFailure(String rule, ResolutionPart part, RuntimeException failure) {
				RateLimitedAspectTests.this.failures.add(rule + " " + part.propertyName());
			}

		});

	@Test
	void throwingKeyAndCostFallBackToTheGlobalQuotaAndCostOneOutsideARequest() {
		this.runner.run((context) -> {
			Orders orders = context.getBean(Orders.class);
			assertThat(orders.place(null)).isEqualTo("placed");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.place(null));
			assertThat(this.failures).containsExactly("orders key", "orders cost", "orders key", "orders cost");
		});
	}

	static class Orders {

		@RateLimited(name = "orders", limit = 1, period = "1h", key = "#order.customer", cost = "#order.items")
		public String place(@Nullable Order order) {
			return "placed";
		}

	}

	record Order(String customer, int items) {
	}

}
