package dev.ratelimit.rule;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.actuate.RateLimitMetrics;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.autoconfigure.RuleCompiler;
import dev.ratelimit.key.RequestExpressions;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.web.ServletRateLimitRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class ResolutionFailuresTests {

	/** Throws a NumberFormatException (SpEL passes it on as it is) whose message quotes the header. */
	private static final String THROWING = "#{T(Integer).parseInt(request.getHeader('A'))}";

	/** Throws a SpelEvaluationException. */
	private static final String MISSPELT = "#{request.getHeader('A').noSuchMethod()}";

	private static final String SECRET = "secret-header-value";

	private static final long START = -5;

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RateLimitMetrics metrics = new RateLimitMetrics(this.registry, 0.2, () -> StoreState.LOCAL);

	private final AtomicLong nanos = new AtomicLong(START);

	private final RuleCompiler compiler = new RuleCompiler(new RequestExpressions(null), (name) -> {
		throw new IllegalArgumentException(name);
	}, new ResolutionFailures(() -> this.metrics, this.nanos::get));

	@Test
	void aThrowingKeyFallsBackToTheIpWarnsOncePerIntervalWithoutClientValuesAndCountsEveryFailure(
			CapturedOutput output) {
		RuleMatcher rules = rules("tenant", THROWING, null, "1");
		for (int i = 0; i < 3; i++) {
			assertThat(rules.checksFor(request())).singleElement()
				.satisfies((check) -> assertThat(check.subject()).isEqualTo("10.0.0.1"));
			this.nanos.addAndGet(Duration.ofSeconds(3).toNanos());
		}
		assertThat(warnings(output, "tenant", "key")).as("three failures within 10 s").isEqualTo(1);
		assertThat(output).contains("Rate limit rule 'tenant': its key could not be resolved")
			.contains("(java.lang.NumberFormatException)", "the client IP is used instead")
			.doesNotContain(SECRET)
			.doesNotContain("10.0.0.1");
		this.nanos.set(START + Duration.ofSeconds(10).toNanos() - 1);
		rules.checksFor(request());
		assertThat(warnings(output, "tenant", "key")).as("10 s since the warning are not over yet").isEqualTo(1);
		this.nanos.incrementAndGet();
		rules.checksFor(request());
		assertThat(warnings(output, "tenant", "key")).isEqualTo(2);
		assertThat(output).doesNotContain(SECRET);
		assertThat(failures("tenant", "key")).isEqualTo(5);
	}

	@Test
	void aThrowingTierKeyOrCostFallsBackToTheRulesLimitOrACostOfOneEachWarnedAboutAndCounted(CapturedOutput output) {
		RuleMatcher rules = rules("plans", "ip", THROWING, MISSPELT);
		for (int i = 0; i < 2; i++) {
			RateLimitCheck check = rules.checksFor(request()).get(0);
			assertThat(check.policy().limit()).isEqualTo(5);
			assertThat(check.cost()).isEqualTo(1);
		}
		assertThat(warnings(output, "plans", "tier-key")).isEqualTo(1);
		assertThat(warnings(output, "plans", "cost")).isEqualTo(1);
		assertThat(output).contains("the rule's own limit is used instead", "the request costs 1 instead")
			.contains("(org.springframework.expression.spel.SpelEvaluationException METHOD_NOT_FOUND at position 23 in the expression)")
			.doesNotContain(SECRET);
		assertThat(failures("plans", "tier-key")).isEqualTo(2);
		assertThat(failures("plans", "cost")).isEqualTo(2);
		assertThat(this.registry.find("ratelimit.key.resolution.failures").tag("part", "key").counters()).isEmpty();
	}

	@Test
	void nothingIsReportedWhenEverythingResolves(CapturedOutput output) {
		RuleMatcher rules = rules("fine", "ip+#{request.getHeader('A')}", "header:A", "#{request.getHeader('B')}");
		assertThat(rules.checksFor(request()).get(0).subject()).isEqualTo("10.0.0.1|" + SECRET);
		assertThat(output).doesNotContain("could not be resolved");
		assertThat(this.registry.find("ratelimit.key.resolution.failures").counters()).isEmpty();
	}

	private RuleMatcher rules(String name, String key, String tierKey, String cost) {
		RateLimitProperties.Rule rule = new RateLimitProperties.Rule();
		rule.setKey(key);
		rule.setLimit(5L);
		rule.setPeriod(Duration.ofMinutes(1));
		rule.setCost(cost);
		if (tierKey != null) {
			rule.setTierKey(tierKey);
			rule.setTiers(Map.of("pro", 50L));
		}
		RateLimitProperties properties = new RateLimitProperties();
		properties.setRules(Map.of(name, rule));
		return new RuleMatcher(this.compiler.compile(properties));
	}

	private static RateLimitRequest request() {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/items");
		request.setRemoteAddr("10.0.0.1");
		request.addHeader("A", SECRET);
		request.addHeader("B", "2");
		return new ServletRateLimitRequest(request);
	}

	private static long warnings(CapturedOutput output, String rule, String part) {
		return output.getOut()
			.lines()
			.filter((line) -> line.contains("WARN") && line.contains("Rate limit rule '" + rule + "': its " + part + " "))
			.count();
	}

	private double failures(String rule, String part) {
		return this.registry.get("ratelimit.key.resolution.failures").tag("rule", rule).tag("part", part).counter()
			.count();
	}

}
