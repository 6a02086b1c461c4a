package dev.ratelimit.autoconfigure;

import dev.ratelimit.Algorithm;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimit;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.adaptive.AdaptiveSettings;
import dev.ratelimit.adaptive.AdaptiveStrategy;
import dev.ratelimit.rule.RateLimitRules;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code algorithm: adaptive-concurrency} rules: defaults, validation naming the property, the optional library, and
 * the gauges.
 */
@ExtendWith(OutputCaptureExtension.class)
class AdaptiveConcurrencyAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.slow.match.paths=/slow/**",
				"ratelimit.rules.slow.algorithm=adaptive-concurrency");

	@Test
	void anAdaptiveRuleNeedsNoLimitNorPeriodAndIsNoRateRule(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				AdaptiveConcurrencyLimit slow = context.getBean(AdaptiveConcurrencyLimits.class).get("slow").orElseThrow();
				assertThat(slow.rule().settings()).isEqualTo(new AdaptiveSettings(AdaptiveStrategy.GRADIENT2, 20, 1, 200));
				assertThat(slow.limit()).isEqualTo(20);
				assertThat(context.getBean(RateLimitRules.class).get("slow")).isEmpty();
				assertThat(context.getBean(RateLimitRules.class).get("api")).isPresent();
				assertThat(output).contains("Rate limit rule 'slow': any method /slow/**, adaptive-concurrency gradient2"
						+ " from 20 within 1..200 requests at once in this instance, enforce");
			});
	}

	@Test
	void settingsAreBound() {
		this.runner.withPropertyValues("ratelimit.rules.slow.adaptive.strategy=vegas",
				"ratelimit.rules.slow.adaptive.initial-limit=8", "ratelimit.rules.slow.adaptive.min-limit=4",
				"ratelimit.rules.slow.adaptive.max-limit=50")
			.run((context) -> assertThat(context.getBean(AdaptiveConcurrencyLimits.class).get("slow").orElseThrow()
				.rule().settings()).isEqualTo(new AdaptiveSettings(AdaptiveStrategy.VEGAS, 8, 4, 50)));
	}

	@Test
	void aMinimumAboveTheDefaultInitialLimitStartsThere() {
		this.runner.withPropertyValues("ratelimit.rules.slow.adaptive.min-limit=40")
			.run((context) -> assertThat(context.getBean(AdaptiveConcurrencyLimits.class).get("slow").orElseThrow()
				.limit()).isEqualTo(40));
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.rules.slow.adaptive.min-limit     | 50   | ratelimit.rules.slow.adaptive.min-limit     | above max-limit 20
			ratelimit.rules.slow.adaptive.min-limit     | 0    | ratelimit.rules.slow.adaptive.min-limit     | at least 1
			ratelimit.rules.slow.adaptive.initial-limit | 30   | ratelimit.rules.slow.adaptive.initial-limit | outside min-limit 1 to max-limit 20
			ratelimit.rules.slow.limit                  | 10   | ratelimit.rules.slow.limit                  | no meaning for adaptive-concurrency
			ratelimit.rules.slow.period                 | 1m   | ratelimit.rules.slow.period                 | no meaning for adaptive-concurrency
			ratelimit.rules.slow.key                    | user | ratelimit.rules.slow.key                    | no meaning for adaptive-concurrency
			ratelimit.rules.slow.tiers.free             | 5    | ratelimit.rules.slow.tiers                  | no meaning for adaptive-concurrency
			ratelimit.rules.slow.on-store-failure       | deny | ratelimit.rules.slow.on-store-failure       | no meaning for adaptive-concurrency
			""")
	void nonsenseFailsStartUpNamingTheProperty(String property, String value, String named, String problem) {
		this.runner.withPropertyValues("ratelimit.rules.slow.adaptive.max-limit=20", property + "=" + value)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'" + named + "'").contains(problem);
				assertThat(analysis.getAction()).startsWith("Fix '" + named + "'.");
			});
	}

	@Test
	void adaptiveSettingsOnARateRuleFailStartUp() {
		new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
			.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m",
					"ratelimit.rules.api.adaptive.max-limit=20")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("'ratelimit.rules.api.adaptive'").contains("adaptive-concurrency only"));
	}

	@Test
	void anUnknownStrategyListsTheStrategies() {
		this.runner.withPropertyValues("ratelimit.rules.slow.adaptive.strategy=gradient3")
			.run((context) -> assertThat(new RateLimitBindFailureAnalyzer().analyze(context.getStartupFailure())
				.getAction()).contains("gradient2, vegas, aimd"));
	}

	@Test
	void withoutTheLibraryAnAdaptiveRuleFailsStartUpNamingTheDependency() {
		this.runner.withClassLoader(new FilteredClassLoader("com.netflix.concurrency.limits")).run((context) -> {
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'ratelimit.rules.slow.algorithm'")
				.contains("concurrency-limits library");
			assertThat(analysis.getAction()).contains("com.netflix.concurrency-limits:concurrency-limits-core");
		});
	}

	@Test
	void withoutAdaptiveRulesTheLibraryIsNotNeeded() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitServletAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("com.netflix.concurrency.limits"))
			.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m")
			.run((context) -> assertThat(context.getBean(AdaptiveConcurrencyLimits.class).all()).isEmpty());
	}

	@Test
	void gaugesShowTheLimitAndTheRequestsInProgressWhenThereIsARegistry() {
		this.runner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, RateLimitActuatorAutoConfiguration.class))
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("ratelimit.adaptive.limit").tag("rule", "slow").gauge().value()).isEqualTo(20);
				assertThat(registry.get("ratelimit.concurrency.in.flight").tag("rule", "slow").gauge().value()).isZero();
			});
		this.runner.withConfiguration(AutoConfigurations.of(RateLimitActuatorAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean("rateLimitAdaptiveConcurrencyMetrics"));
	}

	@Test
	void everyRateAlgorithmCanBeConfigured() {
		for (Algorithm algorithm : Algorithm.values()) {
			assertThat(RateLimitProperties.RuleAlgorithm.valueOf(algorithm.name()).rateAlgorithm()).as(
					"RateLimitProperties.RuleAlgorithm lists every Algorithm").isEqualTo(algorithm);
		}
		assertThat(RateLimitProperties.RuleAlgorithm.ADAPTIVE_CONCURRENCY.rateAlgorithm()).isNull();
	}

	private static FailureAnalysis analyze(Throwable failure) {
		assertThat(failure).as("start-up failure").isNotNull();
		FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("analysis of " + failure).isNotNull();
		return analysis;
	}

}
