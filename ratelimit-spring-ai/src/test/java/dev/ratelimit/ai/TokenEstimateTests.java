package dev.ratelimit.ai;

import java.util.Map;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A rule's cost as a chat request's estimate: a number, or a template over the prompt, its options, its tokens and
 * the advisor context; what a template yields becomes a cost as for any rule.
 */
class TokenEstimateTests {

	@Test
	void aNumberIsFixed() {
		assertThat(TokenEstimate.parse("p", " 150 ", null).estimate(root(new Prompt("hi")))).isEqualTo(150);
	}

	@Test
	void aTemplateReadsThePromptsOptionsAndTokens() {
		TokenEstimate estimate = TokenEstimate.parse("p", "#{(maxTokens ?: 256) + promptTokens}", null);
		Prompt withMax = new Prompt("one two three", ChatOptions.builder().maxTokens(400).build());
		assertThat(estimate.estimate(root(withMax))).isEqualTo(403);
		assertThat(estimate.estimate(root(new Prompt("one two three")))).isEqualTo(259);
		assertThat(TokenEstimate.parse("p", "#{context['estimate']}", null)
			.estimate(new TokenEstimateRoot(new Prompt("hi"), null, Map.of("estimate", 77)))).isEqualTo(77);
	}

	@Test
	void whatATemplateYieldsBecomesACostAsForAnyRule() {
		assertThat(TokenEstimate.parse("p", "#{maxTokens}", null).estimate(root(new Prompt("hi")))).as("null")
			.isEqualTo(1);
		assertThat(TokenEstimate.parse("p", "#{2.5}", null).estimate(root(new Prompt("hi")))).isEqualTo(3);
		assertThat(TokenEstimate.parse("p", "#{1e30}", null).estimate(root(new Prompt("hi"))))
			.isEqualTo(RateLimitCheck.MAX_COST);
	}

	@Test
	void anInvalidValueNamesTheProperty() {
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> TokenEstimate.parse("ratelimit.rules.t.cost", "0", null))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.t.cost"));
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> TokenEstimate.parse("ratelimit.rules.t.cost", "#{(maxTokens}", null));
	}

	private static TokenEstimateRoot root(Prompt prompt) {
		return new TokenEstimateRoot(prompt, null, Map.of());
	}

}
