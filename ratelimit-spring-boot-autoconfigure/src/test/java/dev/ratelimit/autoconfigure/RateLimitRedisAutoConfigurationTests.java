package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.Map;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.actuate.RateLimitHealthIndicator;
import dev.ratelimit.actuate.RateLimitsEndpoint;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisBatching;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.resilience.ResilientRateLimiterBuilder;
import dev.ratelimit.store.StoreRateLimiter;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter in front of Redis as the auto-configuration builds it: its circuit breaker with and without the
 * application's {@link CircuitBreakerRegistry}, the customizers, and who decides as health, metrics and the endpoint
 * show it. Nothing here calls Redis (the connection factory points at a closed port).
 */
class RateLimitRedisAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitActuatorAutoConfiguration.class))
		.withBean("redisConnectionFactory", LettuceConnectionFactory.class,
				() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1)))
		.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m",
				"ratelimit.circuit-breaker.minimum-number-of-calls=7",
				"ratelimit.circuit-breaker.wait-duration-in-open-state=3s");

	@Test
	void theStoreConnectsThroughItsOwnFactoryThatRejectsCommandsWhileDisconnected() {
		this.runner.run((context) -> assertThat(context.getBean(RedisRateLimitStore.class).rejectsWhileDisconnected())
			.as("own connection, REJECT_COMMANDS")
			.isTrue());
	}

	@Test
	void theStoreUsesTheApplicationsFactoryWhenItsOwnConnectionIsSwitchedOffOrCannotBeDerived() {
		this.runner.withPropertyValues("ratelimit.redis.own-connection=false")
			.run((context) -> assertThat(context.getBean(RedisRateLimitStore.class).rejectsWhileDisconnected())
				.isFalse());
		this.runner.withPropertyValues("spring.data.redis.masterreplica.nodes=127.0.0.1:1,127.0.0.1:2")
			.run((context) -> assertThat(context.getBean(RedisRateLimitStore.class).rejectsWhileDisconnected())
				.isFalse());
	}

	@Test
	void withoutACircuitBreakerRegistryTheBreakerIsBuiltFromTheProperties() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(CircuitBreakerRegistry.class);
			CircuitBreaker breaker = limiter(context.getBean(RateLimiter.class)).circuitBreaker();
			assertThat(breaker.getName()).isEqualTo("ratelimit-store")
				.isEqualTo(ResilientRateLimiterBuilder.CIRCUIT_BREAKER_NAME);
			assertThat(breaker.getCircuitBreakerConfig().getMinimumNumberOfCalls()).isEqualTo(7);
			assertThat(breaker.getCircuitBreakerConfig().getWaitIntervalFunctionInOpenState().apply(1))
				.isEqualTo(3_000);
		});
	}

	@Test
	void withACircuitBreakerRegistryTheBreakerIsCreatedThereFromTheProperties() {
		this.runner.withBean(CircuitBreakerRegistry.class, CircuitBreakerRegistry::ofDefaults).run((context) -> {
			CircuitBreaker breaker = limiter(context.getBean(RateLimiter.class)).circuitBreaker();
			assertThat(context.getBean(CircuitBreakerRegistry.class).find("ratelimit-store")).containsSame(breaker);
			assertThat(breaker.getCircuitBreakerConfig().getMinimumNumberOfCalls()).isEqualTo(7);
		});
	}

	@Test
	void aBreakerOrConfigurationThatTheRegistryHasUnderTheNameIsUsedAsItIs() {
		CircuitBreakerConfig theirs = CircuitBreakerConfig.custom().minimumNumberOfCalls(42).build();
		this.runner.withBean(CircuitBreakerRegistry.class, () -> {
			CircuitBreakerRegistry registry = CircuitBreakerRegistry.ofDefaults();
			registry.circuitBreaker("ratelimit-store", theirs);
			return registry;
		}).run((context) -> {
			CircuitBreaker breaker = limiter(context.getBean(RateLimiter.class)).circuitBreaker();
			assertThat(context.getBean(CircuitBreakerRegistry.class).find("ratelimit-store")).containsSame(breaker);
			assertThat(breaker.getCircuitBreakerConfig().getMinimumNumberOfCalls()).isEqualTo(42);
		});
		this.runner
			.withBean(CircuitBreakerRegistry.class, () -> CircuitBreakerRegistry.of(Map.of("ratelimit-store", theirs)))
			.run((context) -> assertThat(limiter(context.getBean(RateLimiter.class)).circuitBreaker()
				.getCircuitBreakerConfig()
				.getMinimumNumberOfCalls()).isEqualTo(42));
	}

	@Test
	void theBuildersDefaultsAreThoseOfTheProperties() {
		CircuitBreakerConfig builder = ResilientRateLimiter.builder(new LocalRateLimitStore(1)).circuitBreakerConfig();
		CircuitBreakerConfig properties = RateLimitRedisAutoConfiguration
			.circuitBreakerConfig(new RateLimitProperties().getCircuitBreaker());
		assertThat(builder).usingRecursiveComparison()
			.comparingOnlyFields("failureRateThreshold", "slidingWindowType", "slidingWindowSize",
					"minimumNumberOfCalls", "permittedNumberOfCallsInHalfOpenState")
			.isEqualTo(properties);
		assertThat(builder.getWaitIntervalFunctionInOpenState().apply(1))
			.isEqualTo(properties.getWaitIntervalFunctionInOpenState().apply(1));
	}

	@Test
	void limiterCustomizersApplyInOrderAfterTheProperties() {
		this.runner.withUserConfiguration(LimiterCustomizers.class).run((context) -> {
			ResilientRateLimiter limiter = limiter(context.getBean(RateLimiter.class));
			CircuitBreakerConfig config = limiter.circuitBreaker().getCircuitBreakerConfig();
			assertThat(config.getMinimumNumberOfCalls()).as("second customizer, from the first one's 8").isEqualTo(9);
			assertThat(config.getSlowCallDurationThreshold()).isEqualTo(Duration.ofMillis(50));
			assertThat(limiter.denyCache()).isNull();
		});
	}

	@Test
	void storeCustomizersApplyInOrderAfterTheProperties() {
		this.runner.withPropertyValues("ratelimit.redis.timeout=300ms")
			.withUserConfiguration(StoreCustomizers.class)
			.run((context) -> assertThat(context.getBean(RedisRateLimitStore.class)).extracting("commandTimeout")
				.isEqualTo(Duration.ofMillis(900)));
	}

	@Test
	void theStoreBatchesAsTheBatchPropertiesSay() {
		this.runner.run((context) -> assertThat(context.getBean(RedisRateLimitStore.class)).extracting("batching")
			.isEqualTo(RedisBatching.DEFAULT));
		this.runner
			.withPropertyValues("ratelimit.redis.batch.lanes=3", "ratelimit.redis.batch.max-requests=16",
					"ratelimit.redis.batch.max-checks=40")
			.run((context) -> assertThat(context.getBean(RedisRateLimitStore.class)).extracting("batching")
				.isEqualTo(new RedisBatching(true, 3, 16, 40)));
		this.runner.withPropertyValues("ratelimit.redis.batch.enabled=false")
			.run((context) -> assertThat(context.getBean(RedisRateLimitStore.class)).extracting("batching")
				.isEqualTo(RedisBatching.OFF));
	}

	@Test
	void aBatchLimitBelowOneFailsStartUpNamingIt() {
		this.runner.withPropertyValues("ratelimit.redis.batch.max-requests=0").run((context) -> {
			FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'ratelimit.redis.batch.max-requests'");
		});
	}

	@Test
	void anInvalidCircuitBreakerPropertyFailsStartUpNamingIt() {
		this.runner.withPropertyValues("ratelimit.circuit-breaker.failure-rate-threshold=0").run((context) -> {
			FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'ratelimit.circuit-breaker'");
		});
	}

	@Test
	void healthMetricsAndTheEndpointShowTheBreakersStateWhoeverMovesIt() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> {
				RateLimitHealthIndicator health = context.getBean(RateLimitHealthIndicator.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
				assertThat(health.health().getDetails()).containsEntry("store", "redis")
					.containsEntry("state", "redis")
					.containsEntry("circuit", "closed");
				assertThat(meters.get("ratelimit.store.state").tag("state", "redis").gauge().value()).isOne();
				limiter(context.getBean(RateLimiter.class)).circuitBreaker().transitionToForcedOpenState();
				assertThat(health.health().getDetails()).containsEntry("state", "fallback")
					.containsEntry("circuit", "forced_open");
				assertThat(meters.get("ratelimit.store.state").tag("state", "fallback").gauge().value()).isOne();
				assertThat(meters.get("ratelimit.store.state").tag("state", "redis").gauge().value()).isZero();
				assertThat(endpoint.rateLimits().state()).isEqualTo("fallback");
				assertThat(endpoint.rateLimits().circuit()).isEqualTo("forced_open");
			});
	}

	@Test
	void withALimiterOfTheApplicationsOwnTheStateIsLocal() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(RateLimiter.class, () -> new StoreRateLimiter(new LocalRateLimitStore(10)))
			.run((context) -> {
				assertThat(context.getBean(RateLimitHealthIndicator.class).health().getDetails())
					.containsEntry("state", "local")
					.doesNotContainKey("circuit");
				assertThat(context.getBean(MeterRegistry.class)
					.get("ratelimit.store.state")
					.tag("state", "local")
					.gauge()
					.value()).isOne();
			});
	}

	private static ResilientRateLimiter limiter(RateLimiter limiter) {
		assertThat(limiter).isInstanceOf(ResilientRateLimiter.class);
		return (ResilientRateLimiter) limiter;
	}

	@Configuration(proxyBeanMethods = false)
	static class LimiterCustomizers {

		@Bean
		@Order(2)
		ResilientRateLimiterBuilderCustomizer second() {
			return (builder) -> builder
				.circuitBreakerConfig((config) -> config
					.minimumNumberOfCalls(builder.circuitBreakerConfig().getMinimumNumberOfCalls() + 1)
					.slowCallDurationThreshold(Duration.ofMillis(50)))
				.denyCache(false);
		}

		@Bean
		@Order(1)
		ResilientRateLimiterBuilderCustomizer first() {
			return (builder) -> {
				assertThat(builder.circuitBreakerConfig().getMinimumNumberOfCalls()).as("from the properties")
					.isEqualTo(7);
				builder.circuitBreakerConfig((config) -> config.minimumNumberOfCalls(8));
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class StoreCustomizers {

		@Bean
		@Order(2)
		RedisRateLimitStoreBuilderCustomizer triple() {
			return (builder) -> builder.timeout(builder.timeout().multipliedBy(3));
		}

		@Bean
		@Order(1)
		RedisRateLimitStoreBuilderCustomizer fromTheProperties() {
			return (builder) -> assertThat(builder.timeout()).isEqualTo(Duration.ofMillis(300));
		}

	}

}
