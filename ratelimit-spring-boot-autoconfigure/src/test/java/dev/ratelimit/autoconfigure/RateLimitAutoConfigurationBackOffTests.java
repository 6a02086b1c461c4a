package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.actuate.RateLimitsEndpoint;
import dev.ratelimit.actuate.TopOffenders;
import dev.ratelimit.aop.CurrentRequest;
import dev.ratelimit.aop.RateLimitedAspect;
import dev.ratelimit.key.RequestExpressions;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.resilience.StoreStatus;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleOverrideRepository;
import dev.ratelimit.rule.RuleOverrideSynchronizer;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.web.ProblemDetailRejectionHandler;
import dev.ratelimit.web.RateLimitExceptionHandler;
import dev.ratelimit.web.RateLimitHeadersWriter;
import dev.ratelimit.web.RateLimitRejectionHandler;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every bean a user may replace backs off on the type users replace, with Redis present (the Redis
 * auto-configuration registers more specific types than the core one).
 */
class RateLimitAutoConfigurationBackOffTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(
			RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
			RateLimitServletAutoConfiguration.class, RateLimitAopAutoConfiguration.class, AopAutoConfiguration.class,
			RateLimitActuatorAutoConfiguration.class);

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withBean("redisConnectionFactory", LettuceConnectionFactory.class,
				() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1)))
		.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m",
				"management.endpoints.web.exposure.include=ratelimits");

	static Stream<Arguments> replaceableBeans() {
		RateLimitRules rules = new RateLimitRules(List.of());
		LocalRateLimitStore store = new LocalRateLimitStore(10, java.time.Clock.systemUTC());
		StoreRateLimiter limiter = new StoreRateLimiter(store);
		RuleOverrideRepository overrides = RuleOverrideRepository.inMemory();
		return Stream.of(
				bean(RateLimiter.class, () -> limiter),
				bean(RateLimitStore.class, () -> store),
				bean(RateLimitRules.class, () -> rules),
				bean(RuleCompiler.class, () -> new RuleCompiler(new RequestExpressions(null), (name) -> null)),
				bean(RuleOverrideRepository.class, () -> overrides),
				bean(RuleOverrideSynchronizer.class,
						() -> new RuleOverrideSynchronizer(overrides, rules, java.time.Duration.ofSeconds(1))),
				bean(RateLimitHeadersWriter.class, () -> (response, verdict) -> {
				}),
				bean(RateLimitRejectionHandler.class, ProblemDetailRejectionHandler::new),
				bean(RateLimitExceptionHandler.class, () -> new RateLimitExceptionHandler(new ProblemDetailRejectionHandler())),
				bean(RateLimitedAspect.class, () -> new RateLimitedAspect(limiter, rules,
						new GenericApplicationContext().getBeanFactory(), CurrentRequest.none())),
				bean(CurrentRequest.class, CurrentRequest::none),
				bean(TopOffenders.class, () -> new TopOffenders(1, java.time.Duration.ofMinutes(1), System::nanoTime)),
				bean(RateLimitsEndpoint.class,
						() -> new RateLimitsEndpoint(rules, limiter, StoreStatus.local(), store, overrides, null, "mine")));
	}

	private static <T> Arguments bean(Class<T> type, Supplier<? extends T> supplier) {
		return Arguments.of(type.getSimpleName(), type, supplier);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("replaceableBeans")
	<T> void userBeanReplacesTheAutoConfiguredOneWithRedisPresent(String name, Class<T> type, Supplier<T> supplier) {
		T mine = supplier.get();
		this.runner.withBean("mine", type, () -> mine).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).getBean(type).isSameAs(mine);
		});
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("replaceableBeans")
	<T> void withoutUserBeansTheAutoConfiguredOnesAreThere(String name, Class<T> type, Supplier<T> supplier) {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(type);
			if (type == RateLimiter.class) {
				assertThat(context.getBean(type)).isInstanceOf(ResilientRateLimiter.class);
			}
		});
	}

}
