package dev.ratelimit.autoconfigure;

import dev.ratelimit.DenialStatus;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.rule.RateLimitRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.rules.<name>.status}: the default of each kind of rule, the override, and a value that makes no
 * sense failing start-up at the property.
 */
class DenialStatusConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.server.algorithm=concurrency", "ratelimit.rules.server.limit=8",
				"ratelimit.rules.server.key=global", "ratelimit.rules.client.algorithm=concurrency",
				"ratelimit.rules.client.limit=2", "ratelimit.rules.client.key=header:X-Client",
				"ratelimit.rules.rate.limit=10", "ratelimit.rules.rate.period=1m",
				"ratelimit.rules.global-rate.limit=10", "ratelimit.rules.global-rate.period=1m",
				"ratelimit.rules.global-rate.key=global", "ratelimit.rules.adaptive.algorithm=adaptive-concurrency",
				"ratelimit.rules.per-endpoint.algorithm=concurrency", "ratelimit.rules.per-endpoint.limit=4",
				"ratelimit.rules.per-endpoint.key=global+endpoint", "ratelimit.rules.per-user-endpoint.limit=4",
				"ratelimit.rules.per-user-endpoint.algorithm=concurrency", "ratelimit.rules.per-user-endpoint.key=user+endpoint");

	@Test
	void aConcurrencyCapSharedByEveryClientAnswers503AndEveryOtherRule429ByDefault() {
		this.runner.run((context) -> {
			RateLimitRules rules = context.getBean(RateLimitRules.class);
			assertThat(rules.get("server").orElseThrow().status()).isEqualTo(DenialStatus.SERVICE_UNAVAILABLE);
			assertThat(rules.get("client").orElseThrow().status()).isEqualTo(DenialStatus.TOO_MANY_REQUESTS);
			assertThat(rules.get("per-endpoint").orElseThrow().status()).as("shared by every client")
				.isEqualTo(DenialStatus.SERVICE_UNAVAILABLE);
			assertThat(rules.get("per-user-endpoint").orElseThrow().status()).isEqualTo(DenialStatus.TOO_MANY_REQUESTS);
			assertThat(rules.get("rate").orElseThrow().status()).isEqualTo(DenialStatus.TOO_MANY_REQUESTS);
			assertThat(rules.get("global-rate").orElseThrow().status()).as("a global rate is still a rate")
				.isEqualTo(DenialStatus.TOO_MANY_REQUESTS);
			assertThat(context.getBean(AdaptiveConcurrencyLimits.class).get("adaptive").orElseThrow().rule().status())
				.isEqualTo(DenialStatus.SERVICE_UNAVAILABLE);
		});
	}

	@Test
	void statusOverridesTheDefaultOfAnyRule() {
		this.runner.withPropertyValues("ratelimit.rules.server.status=429", "ratelimit.rules.client.status=503",
				"ratelimit.rules.rate.status=503", "ratelimit.rules.adaptive.status=429").run((context) -> {
					RateLimitRules rules = context.getBean(RateLimitRules.class);
					assertThat(rules.get("server").orElseThrow().status()).isEqualTo(DenialStatus.TOO_MANY_REQUESTS);
					assertThat(rules.get("client").orElseThrow().status()).isEqualTo(DenialStatus.SERVICE_UNAVAILABLE);
					assertThat(rules.get("rate").orElseThrow().status()).isEqualTo(DenialStatus.SERVICE_UNAVAILABLE);
					assertThat(context.getBean(AdaptiveConcurrencyLimits.class).get("adaptive").orElseThrow().rule()
						.status()).isEqualTo(DenialStatus.TOO_MANY_REQUESTS);
				});
	}

	@ParameterizedTest
	@ValueSource(strings = { "rate", "adaptive" })
	void aStatusOtherThan429Or503FailsStartUpNamingTheProperty(String rule) {
		this.runner.withPropertyValues("ratelimit.rules." + rule + ".status=500").run((context) -> {
			assertThat(context.getStartupFailure()).as("start-up failure").isNotNull();
			FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("'ratelimit.rules." + rule + ".status'")
				.contains("must be 429 or 503 but was 500");
			assertThat(analysis.getAction()).contains("429").contains("503");
		});
	}

	@Test
	void statusIsAKnownProperty() {
		this.runner.withPropertyValues("ratelimit.rules.rate.stauts=503")
			.run((context) -> assertThat(context.getStartupFailure()).hasMessageContaining("ratelimit.rules.rate.status"));
	}

}
