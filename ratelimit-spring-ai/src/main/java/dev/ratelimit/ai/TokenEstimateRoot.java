package dev.ratelimit.ai;

import java.util.Map;

import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.tokenizer.JTokkitTokenCountEstimator;
import org.springframework.ai.tokenizer.TokenCountEstimator;

/**
 * What a rule's {@code cost} template reads when {@link TokenRateLimitAdvisor} estimates a chat request: the root
 * object of {@code #{...}} there, e.g. {@code #{maxTokens ?: 1000}} or {@code #{promptTokens + (maxTokens ?: 1000)}}.
 * The properties are read on demand: {@link #getPromptTokens()} counts the prompt only when a template asks for it.
 */
public final class TokenEstimateRoot {

	private static final TokenCountEstimator TOKENIZER = new JTokkitTokenCountEstimator();

	private final Prompt prompt;

	private final @Nullable RateLimitRequest request;

	private final Map<String, @Nullable Object> context;

	private int promptTokens = -1;

	/**
	 * @param prompt the prompt that the model will be called with
	 * @param request the HTTP request the call runs in, or {@code null} outside one
	 * @param context the advisor context of the call ({@code ChatClientRequest.context()})
	 */
	public TokenEstimateRoot(Prompt prompt, @Nullable RateLimitRequest request, Map<String, @Nullable Object> context) {
		this.prompt = prompt;
		this.request = request;
		this.context = context;
	}

	/** Returns the prompt: its messages ({@code prompt.instructions}) and options. */
	public Prompt getPrompt() {
		return this.prompt;
	}

	/** Returns the prompt's options, or {@code null} when it has none. */
	public @Nullable ChatOptions getOptions() {
		return this.prompt.getOptions();
	}

	/** Returns the most tokens the prompt lets the model produce ({@code options.maxTokens}), or {@code null}. */
	public @Nullable Integer getMaxTokens() {
		ChatOptions options = this.prompt.getOptions();
		return (options != null) ? options.getMaxTokens() : null;
	}

	/**
	 * Returns an estimate of the prompt's own tokens, counted with the {@code cl100k_base} encoding (JTokkit, as Spring
	 * AI's {@code JTokkitTokenCountEstimator}): close to what OpenAI models count, an approximation for others.
	 */
	public int getPromptTokens() {
		if (this.promptTokens < 0) {
			this.promptTokens = TOKENIZER.estimate(this.prompt.getContents());
		}
		return this.promptTokens;
	}

	/** Returns the HTTP request the call runs in (as a rule's key reads it), or {@code null} outside one. */
	public @Nullable RateLimitRequest getRequest() {
		return this.request;
	}

	/** Returns the advisor context of the call: what the caller passed with {@code advisors(a -> a.param(k, v))}. */
	public Map<String, @Nullable Object> getContext() {
		return this.context;
	}

}
