package dev.ratelimit.ai;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Flux;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * A stand-in for a language model (no model weights can be fetched here): answers every call with a few words and
 * reports a fixed usage, as a provider's API reports the tokens it billed. A stream sends one chunk per word, then a
 * last chunk that carries the usage and no text, as OpenAI's does with {@code stream_options.include_usage}. Counts
 * the calls that reached it.
 */
public class UsageReportingChatModel implements ChatModel {

	private final AtomicInteger calls = new AtomicInteger();

	private volatile int promptTokens;

	private volatile int completionTokens;

	private volatile int words = 5;

	private volatile boolean failing;

	public UsageReportingChatModel(int promptTokens, int completionTokens) {
		this.promptTokens = promptTokens;
		this.completionTokens = completionTokens;
	}

	/** Sets the usage the next calls report. */
	public void reports(int promptTokens, int completionTokens) {
		this.promptTokens = promptTokens;
		this.completionTokens = completionTokens;
	}

	/** Sets how many word chunks a stream sends before its usage. */
	public void words(int words) {
		this.words = words;
	}

	/** Sets whether the next calls fail, as a provider's API that answers 500. */
	public void failing(boolean failing) {
		this.failing = failing;
	}

	/** Returns how many calls and streams reached the model. */
	public int calls() {
		return this.calls.get();
	}

	@Override
	public ChatResponse call(Prompt prompt) {
		this.calls.incrementAndGet();
		if (this.failing) {
			throw new IllegalStateException("the model failed");
		}
		return new ChatResponse(List.of(new Generation(new AssistantMessage(String.join(" ", words())))), usage());
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		return Flux.defer(() -> {
			this.calls.incrementAndGet();
			List<ChatResponse> chunks = new ArrayList<>();
			for (String word : words()) {
				chunks.add(new ChatResponse(List.of(new Generation(new AssistantMessage(word + " ")))));
			}
			chunks.add(new ChatResponse(List.of(), usage()));
			return Flux.fromIterable(chunks);
		});
	}

	private List<String> words() {
		List<String> words = new ArrayList<>();
		for (int i = 0; i < this.words; i++) {
			words.add("word" + i);
		}
		return words;
	}

	private ChatResponseMetadata usage() {
		return ChatResponseMetadata.builder().usage(new DefaultUsage(this.promptTokens, this.completionTokens)).build();
	}

}
