package dev.ratelimit.sample.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import reactor.core.publisher.Flux;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * A <strong>stand-in</strong> for a language model, so that the sample runs without an API key or model weights: it
 * is not a model. It answers with a fixed text built from the question, one word per token, and reports its usage as
 * a provider's API does: the prompt's tokens (here: its words) and the completion's (the words it produced, at most
 * the prompt's {@code maxTokens}). A stream sends one chunk per word, then a last chunk that carries the usage and no
 * text (as OpenAI's does with {@code stream_options.include_usage}). A real application puts a Spring AI model starter
 * here (e.g. {@code spring-ai-starter-model-openai}); the rate limiting does not change.
 */
public class StandInChatModel implements ChatModel {

	private static final String ANSWER = "This answer comes from the sample's stand-in model, which is not a language"
			+ " model: it streams one word per token and reports the tokens it used, so that the daily token budget of"
			+ " your API key can be seen at work. Every word you read here was counted, and so was your question:";

	private final Duration chunkDelay;

	/**
	 * @param chunkDelay the pause before each streamed word, so that a client sees the answer arrive
	 */
	public StandInChatModel(Duration chunkDelay) {
		this.chunkDelay = chunkDelay;
	}

	@Override
	public ChatResponse call(Prompt prompt) {
		List<String> words = answer(prompt);
		return new ChatResponse(List.of(new Generation(new AssistantMessage(String.join(" ", words)))),
				usage(prompt, words.size()));
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		return Flux.defer(() -> {
			List<String> words = answer(prompt);
			Flux<ChatResponse> chunks = Flux.fromIterable(words)
				.index()
				.map((word) -> new ChatResponse(List.of(new Generation(
						new AssistantMessage(((word.getT1() == 0) ? "" : " ") + word.getT2())))));
			if (!this.chunkDelay.isZero()) {
				chunks = chunks.delayElements(this.chunkDelay);
			}
			return chunks.concatWith(Flux.just(new ChatResponse(List.of(), usage(prompt, words.size()))));
		});
	}

	private static List<String> answer(Prompt prompt) {
		List<String> words = new ArrayList<>(List.of(ANSWER.split(" ")));
		words.addAll(words(prompt));
		ChatOptions options = prompt.getOptions();
		Integer maxTokens = (options != null) ? options.getMaxTokens() : null;
		return (maxTokens != null && maxTokens < words.size()) ? words.subList(0, Math.max(maxTokens, 0)) : words;
	}

	private static List<String> words(Prompt prompt) {
		String contents = prompt.getContents().trim();
		return contents.isEmpty() ? List.of() : List.of(contents.split("\\s+"));
	}

	private static ChatResponseMetadata usage(Prompt prompt, int completionTokens) {
		return ChatResponseMetadata.builder()
			.model("stand-in")
			.usage(new DefaultUsage(words(prompt).size(), completionTokens))
			.build();
	}

}
