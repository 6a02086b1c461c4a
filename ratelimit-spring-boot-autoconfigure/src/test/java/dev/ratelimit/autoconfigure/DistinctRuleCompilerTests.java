package dev.ratelimit.autoconfigure;

import java.time.Duration;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.algorithm.Distinct;
import dev.ratelimit.key.RequestExpressions;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.ResolutionFailures;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A distinct rule names the values it counts in {@code distinct}, in the syntax of {@code key}; only distinct rules
 * may, and they have no cost.
 */
class DistinctRuleCompilerTests {

	private final RuleCompiler compiler = new RuleCompiler(new RequestExpressions(null), (name) -> {
		throw new IllegalArgumentException("no KeyResolver bean named '" + name + "'");
	});

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class));

	@Test
	void aDistinctRuleCountsTheHashedValueOfItsSpecPerSubject() {
		RateLimitProperties.Rule rule = distinct("#{request.getParameter('username')}");
		RateLimitRule compiled = this.compiler.compile("login", rule, "X-Api-Key");
		assertThat(compiled.policy().algorithm()).isEqualTo(Algorithm.DISTINCT);
		assertThat(RuleCompiler.describe(compiled, rule)).contains(
				", key ip, distinct 5 values of #{request.getParameter('username')} per 1h");
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/login");
		request.setRemoteAddr("10.0.0.7");
		request.setParameter("username", "alice");
		RateLimitCheck check = compiled.check(new ServletRateLimitRequest(request), ResolutionFailures.logOnly());
		assertThat(check).isNotNull();
		assertThat(check.subject()).isEqualTo("10.0.0.7");
		assertThat(check.distinctValue()).isEqualTo(Distinct.token("alice")).doesNotContain("alice");
		assertThat(check.cost()).isEqualTo(1);
	}

	@Test
	void aDistinctSpecWithAUserPartAppliesAfterAuthentication() {
		assertThat(this.compiler.compile("keys", distinct("user"), "X-Api-Key").phase())
			.isEqualTo(RulePhase.AFTER_AUTHENTICATION);
		assertThat(this.compiler.compile("keys", distinct("ip"), "X-Api-Key").phase())
			.isEqualTo(RulePhase.BEFORE_AUTHENTICATION);
	}

	@Test
	void distinctIsRequiredByTheDistinctAlgorithm() {
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> this.compiler.compile("login", distinct(null), "X-Api-Key"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.login.distinct"))
			.withMessageContaining("needs the values to count");
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> this.compiler.compile("login", distinct(" "), "X-Api-Key"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.login.distinct"));
	}

	@Test
	void distinctIsRejectedByEveryOtherAlgorithm() {
		RateLimitProperties.Rule rule = distinct("header:X-Username");
		rule.setAlgorithm(RateLimitProperties.RuleAlgorithm.FIXED_WINDOW);
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> this.compiler.compile("login", rule, "X-Api-Key"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.login.distinct"))
			.withMessageContaining("only algorithm distinct");
	}

	@Test
	void aDistinctRuleHasNoCost() {
		RateLimitProperties.Rule rule = distinct("header:X-Username");
		rule.setCost("2");
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> this.compiler.compile("login", rule, "X-Api-Key"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.login.cost"));
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.rules.login.limit=5                                                     | ratelimit.rules.login.distinct | needs the values to count
			ratelimit.rules.login.distinct=#{request.getParameter(                            | ratelimit.rules.login.distinct | not a valid SpEL template
			ratelimit.rules.login.distinct=@noSuchResolver                                    | ratelimit.rules.login.distinct | no KeyResolver bean named 'noSuchResolver'
			""")
	void anInvalidDistinctRuleFailsStartUpNamingTheProperty(String property, String named, String problem) {
		this.runner.withPropertyValues("ratelimit.rules.login.algorithm=distinct", "ratelimit.rules.login.limit=5",
				"ratelimit.rules.login.period=1h", property)
			.run((context) -> {
				FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("'" + named + "'").contains(problem);
				assertThat(analysis.getAction()).startsWith("Fix '" + named + "'.");
			});
	}

	@Test
	void distinctOnAnotherAlgorithmFailsStartUp() {
		this.runner.withPropertyValues("ratelimit.rules.api.limit=5", "ratelimit.rules.api.period=1h",
				"ratelimit.rules.api.distinct=header:X-Username")
			.run((context) -> assertThat(new InvalidRateLimitRuleFailureAnalyzer().analyze(context.getStartupFailure())
				.getDescription()).contains("'ratelimit.rules.api.distinct'").contains("only algorithm distinct"));
	}

	@Test
	void aValidDistinctRuleStarts() {
		this.runner.withPropertyValues("ratelimit.rules.login.algorithm=distinct", "ratelimit.rules.login.limit=5",
				"ratelimit.rules.login.period=1h", "ratelimit.rules.login.distinct=#{request.getParameter('username')}",
				"ratelimit.rules.keys.algorithm=distinct", "ratelimit.rules.keys.key=api-key",
				"ratelimit.rules.keys.distinct=ip", "ratelimit.rules.keys.limit=3", "ratelimit.rules.keys.period=1d")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private static RateLimitProperties.Rule distinct(String spec) {
		RateLimitProperties.Rule rule = new RateLimitProperties.Rule();
		rule.setAlgorithm(RateLimitProperties.RuleAlgorithm.DISTINCT);
		rule.setLimit(5L);
		rule.setPeriod(Duration.ofHours(1));
		rule.setDistinct(spec);
		return rule;
	}

}
