package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitRulesCustomizerTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m");

	@Test
	void customizersAddAndChangeRulesInOrderBeforeTheyAreCompiled() {
		this.runner.withUserConfiguration(PartnerRule.class).run((context) -> {
			RateLimitRules rules = context.getBean(RateLimitRules.class);
			assertThat(rules.all()).extracting(RateLimitRule::name).containsExactly("api", "partner");
			assertThat(rules.get("partner")).hasValueSatisfying((partner) -> {
				assertThat(partner.policy().limit()).as("the second customizer's change").isEqualTo(2_000);
				assertThat(partner.policy().periodMicros()).isEqualTo(Duration.ofMinutes(1).toNanos() / 1_000);
			});
			assertThat(rules.get("api").orElseThrow().policy().limit()).isEqualTo(10);
		});
	}

	@Test
	void aRuleAddedByACustomizerIsValidatedLikeAConfiguredOne() {
		this.runner.withBean(RateLimitRulesCustomizer.class, () -> (rules) -> rules.put("partner", rule(0)))
			.run((context) -> {
				FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'ratelimit.rules.partner.limit'")
					.contains("at least 1");
			});
	}

	@Test
	void customizersApplyAgainOnEveryReload() {
		this.runner.withUserConfiguration(PartnerRule.class).run((context) -> {
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("changed", Map.of("ratelimit.rules.api.limit", "20")));
			assertThat(context.getBean(RateLimitRulesReloader.class).reload(Set.of("ratelimit.rules.api.limit")))
				.isTrue();
			RateLimitRules rules = context.getBean(RateLimitRules.class);
			assertThat(rules.get("api").orElseThrow().policy().limit()).isEqualTo(20);
			assertThat(rules.get("partner").orElseThrow().policy().limit()).isEqualTo(2_000);
		});
	}

	static RateLimitProperties.Rule rule(long limit) {
		RateLimitProperties.Rule rule = new RateLimitProperties.Rule();
		rule.setKey("header:X-Partner");
		rule.setLimit(limit);
		rule.setPeriod(Duration.ofMinutes(1));
		return rule;
	}

	@Configuration(proxyBeanMethods = false)
	static class PartnerRule {

		@Bean
		@Order(2)
		RateLimitRulesCustomizer doublePartnerLimit() {
			return (rules) -> rules.get("partner").setLimit(rules.get("partner").getLimit() * 2);
		}

		@Bean
		@Order(1)
		RateLimitRulesCustomizer addPartnerRule() {
			return (rules) -> rules.put("partner", rule(1_000));
		}

	}

}
