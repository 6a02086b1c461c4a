package dev.ratelimit.sample.ai;

import java.time.Duration;

import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code GET /api/chat?q=...&maxTokens=N}: an "AI" endpoint that streams its answer as server-sent events, one
 * {@code token} event per chunk ({@code {"text":" word"}}), then a {@code usage} event with the tokens the model
 * reported. Limited by the daily
 * token budget of the caller's API key (rule {@code chat-tokens}, applied to every {@code ChatClient} of the
 * auto-configured builder by {@code ratelimit.ai.rule}): each call reserves its estimate before the model is called,
 * and is settled with the reported usage when the stream ends; a spent budget answers 429 before any token. The model
 * is the sample's {@link StandInChatModel}, not a language model.
 */
@RestController
class ChatController {

	/** The most tokens a call may ask for: the budget's reservations stay bounded. */
	static final int MAX_TOKENS = 1000;

	private final ChatClient chat;

	ChatController(ChatClient.Builder builder) {
		this.chat = builder.build();
	}

	@GetMapping(path = "/api/chat", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
	Flux<ServerSentEvent<Object>> chat(@RequestParam("q") String question,
			@RequestParam(name = "maxTokens", defaultValue = "100") int maxTokens) {
		if (maxTokens < 1 || maxTokens > MAX_TOKENS) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"maxTokens must be between 1 and " + MAX_TOKENS + ", was " + maxTokens);
		}
		return this.chat.prompt()
			.user(question)
			.options(ChatOptions.builder().maxTokens(maxTokens))
			.stream()
			.chatResponse()
			.mapNotNull(ChatController::event);
	}

	private static ServerSentEvent<Object> event(ChatResponse response) {
		Usage usage = response.getMetadata().getUsage();
		if (response.getResult() == null && usage.getTotalTokens() > 0) {
			return ServerSentEvent.<Object>builder(new TokenUsage(usage.getPromptTokens(), usage.getCompletionTokens(),
					usage.getTotalTokens())).event("usage").build();
		}
		String text = (response.getResult() != null) ? response.getResult().getOutput().getText() : null;
		return (text != null && !text.isEmpty()) ? ServerSentEvent.<Object>builder(new Token(text)).event("token").build()
				: null;
	}

	/**
	 * A chunk of the answer, as JSON: a chunk may start with a space, which an event stream's {@code data:} line would
	 * lose (a client drops one space after the colon).
	 */
	record Token(String text) {
	}

	/** The tokens a call used, as the model reported them. */
	record TokenUsage(int promptTokens, int completionTokens, int totalTokens) {
	}

	/** The stand-in model behind the auto-configured {@code ChatClient.Builder}. */
	@Configuration(proxyBeanMethods = false)
	static class StandInModelConfiguration {

		@Bean
		StandInChatModel standInChatModel(@Value("${sample.ai.chunk-delay:20ms}") Duration chunkDelay) {
			return new StandInChatModel(chunkDelay);
		}

	}

}
