package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.web.RateLimitHeadersWriter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.headers}: the style as a value or as {@code style}, and the opt-in partition key.
 */
class HeadersPropertiesTests {

	private static final String SECRET = "ratelimit.headers.partition-key-secret=0123456789abcdef0123";

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m");

	@Test
	void bothStylesAndNoPartitionKeyByDefault() {
		this.runner.run((context) -> {
			MockHttpServletResponse response = write(context, "203.0.113.7");
			assertThat(response.getHeaderNames()).contains("RateLimit-Policy", "RateLimit", "X-RateLimit-Reset");
			assertThat(response.getHeader("RateLimit")).doesNotContain("pk=");
		});
	}

	@Test
	void aStyleGivenAsTheValueOfHeadersIsShortForItsStyleProperty() {
		this.runner.withPropertyValues("ratelimit.headers=ietf").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(write(context, "203.0.113.7").getHeaderNames()).containsOnly("RateLimit-Policy", "RateLimit");
		});
		this.runner.withPropertyValues("ratelimit.headers.style=legacy").run((context) -> assertThat(
				write(context, "203.0.113.7").getHeaderNames())
			.containsOnly("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"));
	}

	@Test
	void partitionKeyIsAByteSequenceOfTheSubjectUnderTheSharedSecretNeverTheSubject() {
		this.runner.withPropertyValues("ratelimit.headers.partition-key=true", SECRET).run((context) -> {
			String policy = write(context, "203.0.113.7").getHeader("RateLimit-Policy");
			String limit = write(context, "203.0.113.7").getHeader("RateLimit");
			assertThat(policy).matches("\"api\";q=10;w=60;pk=:[A-Za-z0-9+/]{16}:");
			String pk = policy.substring(policy.indexOf(";pk="));
			assertThat(limit).endsWith(pk).doesNotContain("203.0.113.7");
			assertThat(write(context, "203.0.113.8").getHeader("RateLimit")).as("another subject").doesNotEndWith(pk);
			this.runner.withPropertyValues("ratelimit.headers.partition-key=true", SECRET)
				.run((other) -> assertThat(write(other, "203.0.113.7").getHeader("RateLimit"))
					.as("another instance with the same secret").endsWith(pk));
			this.runner.withPropertyValues("ratelimit.headers.partition-key=true")
				.run((other) -> assertThat(write(other, "203.0.113.7").getHeader("RateLimit"))
					.as("a random secret").doesNotEndWith(pk));
		});
	}

	@Test
	void aStyleValueTogetherWithNestedHeaderPropertiesFailsStartUp() {
		this.runner.withPropertyValues("ratelimit.headers=ietf", "ratelimit.headers.partition-key=true")
			.run((context) -> {
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'ratelimit.headers'");
				assertThat(analysis.getAction()).contains("ratelimit.headers.style");
			});
	}

	@Test
	void aShortPartitionKeySecretFailsStartUp() {
		this.runner.withPropertyValues("ratelimit.headers.partition-key=true",
				"ratelimit.headers.partition-key-secret=short")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("'ratelimit.headers.partition-key-secret'"));
	}

	@Test
	void aMisspelledHeadersPropertyNamesTheClosestOne() {
		this.runner.withPropertyValues("ratelimit.headers.partition-kye=true")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getAction())
				.contains("Did you mean 'ratelimit.headers.partition-key'"));
	}

	private static MockHttpServletResponse write(AssertableWebApplicationContext context, String subject) {
		RateLimitPolicy policy = RateLimitPolicy.of("api", Algorithm.GCRA, 10, Duration.ofMinutes(1));
		Decision decision = Decision.ofMicros(true, 10, 9, 6_000_000, 0, 6_000_000, 1_700_000_000_000_000L);
		MockHttpServletResponse response = new MockHttpServletResponse();
		context.getBean(RateLimitHeadersWriter.class)
			.write(response, new Verdict(List.of(RateLimitCheck.of(policy, subject)), List.of(decision)));
		return response;
	}

	private static FailureAnalysis analyze(Throwable failure) {
		assertThat(failure).as("start-up failure").isNotNull();
		FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("analysis of " + failure).isNotNull();
		return analysis;
	}

}
