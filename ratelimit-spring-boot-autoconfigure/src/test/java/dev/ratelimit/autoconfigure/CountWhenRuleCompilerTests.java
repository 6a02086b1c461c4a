package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.key.RequestExpressions;
import dev.ratelimit.rule.CountWhen;
import dev.ratelimit.rule.CountWhenRefund;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code count-when}: compiled from its properties, each mistake reported at its property, and what counts.
 */
class CountWhenRuleCompilerTests {

	private final RuleCompiler compiler = new RuleCompiler(new RequestExpressions(null), (name) -> {
		throw new IllegalArgumentException(name);
	});

	private static RateLimitProperties.Rule rule() {
		RateLimitProperties.Rule rule = new RateLimitProperties.Rule();
		rule.setLimit(5L);
		rule.setPeriod(Duration.ofMinutes(15));
		return rule;
	}

	private CountWhen compile(RateLimitProperties.Rule rule) {
		return this.compiler.compile("login", rule, "X-Api-Key").countWhen();
	}

	private void assertInvalid(RateLimitProperties.Rule rule, String property, String message) {
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> this.compiler.compile("login", rule, "X-Api-Key"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo(property))
			.withMessageContaining(message);
	}

	@Test
	void withoutConditionsEveryRequestCounts() {
		assertThat(compile(rule())).isNull();
	}

	@Test
	void statusesCount() {
		RateLimitProperties.Rule rule = rule();
		rule.getCountWhen().setStatus(List.of(401, 403));
		CountWhen countWhen = compile(rule);
		assertThat(countWhen.counts(401, null)).isTrue();
		assertThat(countWhen.counts(403, null)).isTrue();
		assertThat(countWhen.counts(200, null)).isFalse();
		assertThat(countWhen.counts(500, new IllegalStateException())).isFalse();
		assertThat(countWhen.counts(null, null)).as("a call has no status").isFalse();
		RateLimitRule compiled = this.compiler.compile("login", rule, "X-Api-Key");
		assertThat(RuleCompiler.describe(compiled, rule)).contains(", counts only status [401, 403],");
	}

	@Test
	void exceptionsCountWithTheirSubtypesAndWhatTheyCause() {
		RateLimitProperties.Rule rule = rule();
		rule.getCountWhen().setExceptions(List.of("java.lang.IllegalArgumentException"));
		CountWhen countWhen = compile(rule);
		assertThat(countWhen.counts(null, new IllegalArgumentException())).isTrue();
		assertThat(countWhen.counts(null, new NumberFormatException())).as("a subtype").isTrue();
		assertThat(countWhen.counts(500, new IllegalStateException(new IllegalArgumentException())))
			.as("the cause").isTrue();
		assertThat(countWhen.counts(null, new IllegalStateException())).isFalse();
		assertThat(countWhen.counts(200, null)).isFalse();
	}

	@Test
	void anExpressionReadsStatusAndException() {
		RateLimitProperties.Rule rule = rule();
		rule.getCountWhen().setExpression("#{status >= 500 or exception instanceof T(java.io.IOException)}");
		CountWhen countWhen = compile(rule);
		assertThat(countWhen.counts(503, null)).isTrue();
		assertThat(countWhen.counts(200, null)).isFalse();
		assertThat(countWhen.counts(null, new java.io.UncheckedIOException(new java.io.IOException()))).isFalse();
		assertThat(countWhen.counts(null, new java.io.IOException())).isTrue();
		rule.getCountWhen().setExpression("#status == 401");
		assertThat(compile(rule).counts(401, null)).as("plain SpEL, and the variable").isTrue();
		assertThat(compile(rule).counts(402, null)).isFalse();
	}

	@Test
	void anExpressionThatFailsCountsTheOutcome() {
		RateLimitProperties.Rule rule = rule();
		rule.getCountWhen().setExpression("#{exception.message.length() > 3}");
		CountWhen countWhen = compile(rule);
		assertThat(countWhen.counts(200, null)).as("fails without an exception: counts").isTrue();
		assertThat(countWhen.counts(200, new IllegalStateException("no"))).isFalse();
	}

	@Test
	void mistakesAreReportedAtTheirProperty() {
		RateLimitProperties.Rule status = rule();
		status.getCountWhen().setStatus(List.of(401, 4010));
		assertInvalid(status, "ratelimit.rules.login.count-when.status[1]", "'4010' is not an HTTP status");
		RateLimitProperties.Rule missing = rule();
		missing.getCountWhen().setExceptions(List.of("com.example.NoSuchException"));
		assertInvalid(missing, "ratelimit.rules.login.count-when.exceptions[0]", "there is no class");
		RateLimitProperties.Rule notThrowable = rule();
		notThrowable.getCountWhen().setExceptions(List.of("java.lang.String"));
		assertInvalid(notThrowable, "ratelimit.rules.login.count-when.exceptions[0]", "is not an exception");
		RateLimitProperties.Rule syntax = rule();
		syntax.getCountWhen().setExpression("#{status >=}");
		assertInvalid(syntax, "ratelimit.rules.login.count-when.expression", "is not a valid SpEL expression");
		RateLimitProperties.Rule notBoolean = rule();
		notBoolean.getCountWhen().setExpression("#{status + 1}");
		assertInvalid(notBoolean, "ratelimit.rules.login.count-when.expression", "gives Integer, not true or false");
		RateLimitProperties.Rule concurrency = rule();
		concurrency.setAlgorithm(RateLimitProperties.RuleAlgorithm.CONCURRENCY);
		concurrency.setPeriod(null);
		concurrency.getCountWhen().setStatus(List.of(401));
		assertInvalid(concurrency, "ratelimit.rules.login.count-when", "released when they end, not refunded");
		RateLimitProperties.Rule distinct = rule();
		distinct.setAlgorithm(RateLimitProperties.RuleAlgorithm.DISTINCT);
		distinct.setDistinct("header:X-Username");
		distinct.getCountWhen().setStatus(List.of(401));
		assertInvalid(distinct, "ratelimit.rules.login.count-when", "cannot be taken back");
	}

	@Test
	void aRequestThatNeverRanIsRefundedAndOneWhoseClientWentAwayCounts() {
		RateLimitProperties.Rule rule = rule();
		rule.getCountWhen().setStatus(List.of(401));
		CountWhen countWhen = compile(rule);
		assertThat(countWhen.counts(Outcome.REJECTED, 401, null)).isFalse();
		assertThat(countWhen.counts(Outcome.ABORTED, 200, null)).isTrue();
		assertThat(countWhen.counts(Outcome.COMPLETED, 401, null)).isTrue();
		assertThat(countWhen.counts(Outcome.COMPLETED, 200, null)).isFalse();
		assertThat(countWhen.counts(Outcome.TIMED_OUT, 503, null)).isFalse();
	}

	@Test
	void theRefundListenerIsAutoConfiguredAndBindsCountWhen() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
			.withPropertyValues("ratelimit.store=local", "ratelimit.rules.login.limit=5",
					"ratelimit.rules.login.period=15m", "ratelimit.rules.login.count-when.status=401,403",
					"ratelimit.rules.login.count-when.exceptions[0]=java.lang.IllegalArgumentException")
			.run((context) -> {
				assertThat(context).hasSingleBean(CountWhenRefund.class);
				CountWhen countWhen = context.getBean(dev.ratelimit.rule.RateLimitRules.class).get("login")
					.orElseThrow()
					.countWhen();
				assertThat(countWhen).hasToString("status [401, 403] or exception [IllegalArgumentException]");
			});
	}

}
