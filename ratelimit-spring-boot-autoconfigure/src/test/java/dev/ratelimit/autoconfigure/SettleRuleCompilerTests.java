package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.key.RequestExpressions;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.SettleResponse;
import dev.ratelimit.rule.SettleSource;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code settle}: compiled into where a request's actual cost is found when it ends, each mistake reported at the
 * property at start-up, and which rules are settled from code without it.
 */
class SettleRuleCompilerTests {

	private final RuleCompiler compiler = new RuleCompiler(new RequestExpressions(null), (name) -> {
		throw new IllegalArgumentException(name);
	});

	private static RateLimitProperties.Rule rule() {
		RateLimitProperties.Rule rule = new RateLimitProperties.Rule();
		rule.setLimit(100_000L);
		rule.setPeriod(Duration.ofDays(1));
		rule.setCost("1000");
		return rule;
	}

	private RateLimitRule compile(RateLimitProperties.Rule rule) {
		return this.compiler.compile("tokens", rule, "X-Api-Key");
	}

	private void assertInvalid(RateLimitProperties.Rule rule, String message, String fix) {
		assertThatExceptionOfType(InvalidRateLimitRuleException.class).isThrownBy(() -> compile(rule))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.tokens.settle"))
			.withMessageContaining(message)
			.withMessageContaining(fix);
	}

	private static SettleResponse response(int status, String usage) {
		HttpHeaders headers = new HttpHeaders();
		if (usage != null) {
			headers.add("X-Usage-Tokens", usage);
		}
		return new SettleResponse(status, HttpHeaders.readOnlyHttpHeaders(headers));
	}

	@Test
	void aHeaderSourceReadsTheUnitsRoundedUp() {
		RateLimitProperties.Rule rule = rule();
		rule.setSettle("header:X-Usage-Tokens");
		RateLimitRule compiled = compile(rule);
		assertThat(compiled.settle().read(response(200, "350"))).isEqualTo(350);
		assertThat(compiled.settle().read(response(200, "2.5"))).isEqualTo(3);
		assertThat(compiled.settle().read(response(200, null))).as("no header: the estimate stands").isNull();
		assertThat(compiled.settle().read(response(200, "many"))).as("not a number").isNull();
		assertThat(compiled.settle().read(response(200, "-4"))).as("negative").isNull();
		assertThat(RuleCompiler.describe(compiled, rule)).contains(", settled from header X-Usage-Tokens,");
	}

	@Test
	void anExpressionReadsStatusAndHeaders() {
		RateLimitProperties.Rule rule = rule();
		rule.setSettle("#{status == 200 ? headers.getFirst('X-Usage-Tokens') : 0}");
		SettleSource source = compile(rule).settle();
		assertThat(source.read(response(200, "42"))).isEqualTo(42);
		assertThat(source.read(response(500, "42"))).isZero();
	}

	@Test
	void aRuleWithACostOfItsOwnIsSettledFromCodeOnly() {
		RateLimitRule compiled = compile(rule());
		assertThat(compiled.settle()).isSameAs(SettleSource.code());
		assertThat(RuleCompiler.describe(compiled, rule())).as("the start-up line of a rule with a cost, as before")
			.doesNotContain("settled");
	}

	@Test
	void aRuleThatCountsRequestsIsNeverSettled() {
		RateLimitProperties.Rule rule = rule();
		rule.setCost("1");
		assertThat(compile(rule).settle()).isNull();
	}

	@Test
	void aSourceThatIsNeitherAHeaderNorATemplateFailsStartUp() {
		RateLimitProperties.Rule rule = rule();
		rule.setSettle("X-Usage-Tokens");
		assertInvalid(rule, "is neither header:<Name> nor a SpEL template", "Use header:<Name>");
	}

	@Test
	void aHeaderWithoutANameFailsStartUp() {
		RateLimitProperties.Rule rule = rule();
		rule.setSettle("header:");
		assertInvalid(rule, "needs a header name", "Use header:<Name>");
	}

	@Test
	void invalidSpelFailsStartUp() {
		RateLimitProperties.Rule rule = rule();
		rule.setSettle("#{headers.getFirst(}");
		assertInvalid(rule, "is not a valid SpEL template", "#{headers.getFirst('X-Usage-Tokens')}");
	}

	@Test
	void aTemplateThatGivesNoNumberFailsStartUp() {
		RateLimitProperties.Rule rule = rule();
		rule.setSettle("#{headers}");
		assertInvalid(rule, "not a number of units", "Write an expression that gives the units");
	}

	@Test
	void anAlgorithmThatCannotBeSettledFailsStartUp() {
		RateLimitProperties.Rule rule = rule();
		rule.setAlgorithm(RateLimitProperties.RuleAlgorithm.SLIDING_WINDOW_LOG);
		rule.setSettle("header:X-Usage-Tokens");
		assertInvalid(rule, "sliding-window-log cannot be settled after the response", "Use algorithm gcra");
	}

	@Test
	void settleBesideCountWhenFailsStartUp() {
		RateLimitProperties.Rule rule = rule();
		rule.setSettle("header:X-Usage-Tokens");
		rule.getCountWhen().setStatus(List.of(200));
		assertInvalid(rule, "settle and count-when both change what an admitted request counts",
				"Remove count-when");
	}

}
