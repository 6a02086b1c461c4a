package dev.ratelimit.ai.autoconfigure;

import dev.ratelimit.ai.TokenRateLimitAdvisor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Token budgets in front of Spring AI's {@code ChatClient}: which rule limits the tokens of chat calls, and what a
 * model's reported usage counts.
 */
@ConfigurationProperties("ratelimit.ai")
public class RateLimitAiProperties {

	/**
	 * Names the rule under ratelimit.rules that limits the tokens of chat calls per subject: each call reserves the
	 * rule's cost (a number, or a SpEL template over the prompt such as #{maxTokens ?: 1000}) and is settled with the
	 * tokens the model reports. The rule needs match.enabled=false.
	 */
	private @Nullable String rule;

	/**
	 * Whether to add the advisor to every ChatClient built from the auto-configured ChatClient.Builder; with false,
	 * add the TokenRateLimitAdvisor bean to chosen clients by hand.
	 */
	private boolean defaultAdvisor = true;

	/**
	 * Counts each prompt (input) token as this many units of the budget; unset (with completion-token-weight unset)
	 * counts the usage's total tokens.
	 */
	private @Nullable Double promptTokenWeight;

	/**
	 * Counts each completion (output) token as this many units of the budget; unset (with prompt-token-weight unset)
	 * counts the usage's total tokens.
	 */
	private @Nullable Double completionTokenWeight;

	/**
	 * Places the advisor among the ChatClient's advisors (its order); by default before chat memory and tool calling,
	 * so that a refused call reads no memory and a call's usage includes every tool-calling round.
	 */
	private int order = TokenRateLimitAdvisor.DEFAULT_ORDER;

	public @Nullable String getRule() {
		return this.rule;
	}

	public void setRule(@Nullable String rule) {
		this.rule = rule;
	}

	public boolean isDefaultAdvisor() {
		return this.defaultAdvisor;
	}

	public void setDefaultAdvisor(boolean defaultAdvisor) {
		this.defaultAdvisor = defaultAdvisor;
	}

	public @Nullable Double getPromptTokenWeight() {
		return this.promptTokenWeight;
	}

	public void setPromptTokenWeight(@Nullable Double promptTokenWeight) {
		this.promptTokenWeight = promptTokenWeight;
	}

	public @Nullable Double getCompletionTokenWeight() {
		return this.completionTokenWeight;
	}

	public void setCompletionTokenWeight(@Nullable Double completionTokenWeight) {
		this.completionTokenWeight = completionTokenWeight;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

}
