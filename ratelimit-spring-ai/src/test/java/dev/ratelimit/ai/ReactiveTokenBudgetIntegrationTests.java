package dev.ratelimit.ai;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.test.Race;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The streamed variant on WebFlux: 20 parallel requests of one user (the rule's key, {@code header:X-User}, read from
 * the request that the Reactor context of each stream carries), each streaming a chat answer, against 1,000 tokens a
 * day at 150 per call: 6 stream their answer, 14 are answered 429 before any chunk, and 900 are used.
 */
@RedisStandaloneTest
@SpringBootTest(classes = { TokenBudgetTestApplication.class, ReactiveTokenBudgetIntegrationTests.Endpoint.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-ai-test", "spring.main.web-application-type=reactive" })
class ReactiveTokenBudgetIntegrationTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private UsageReportingChatModel model;

	@Autowired
	private RateLimitUsage usage;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@Test
	void twentyParallelStreamedRequestsOfOneUserGetSixOfTheirThousandTokens() throws Exception {
		String user = "user-" + UUID.randomUUID();
		this.model.reports(50, 100);
		int before = this.model.calls();
		ConcurrentLinkedQueue<HttpResponse<String>> responses = new ConcurrentLinkedQueue<>();
		Race.run(20, (thread) -> responses.add(client.send(HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/chat"))
			.header("X-User", user)
			.GET()
			.build(), HttpResponse.BodyHandlers.ofString())));
		assertThat(this.model.calls() - before).as("streams that reached the model").isEqualTo(6);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 200)
			.hasSize(6)
			.allSatisfy((response) -> assertThat(response.body()).contains("word4"));
		assertThat(responses).filteredOn((response) -> response.statusCode() == 429)
			.as("%s", responses.stream().map((response) -> response.statusCode() + " " + response.body()).toList())
			.hasSize(14)
			.allSatisfy((response) -> assertThat(response.body()).doesNotContain("word"));
		assertThat(this.usage.of("chat-tokens", user).orElseThrow().used()).isEqualTo(900);
	}

	/** Streams a chat answer. */
	@RestController
	static class Endpoint {

		private final ChatClient chat;

		Endpoint(ChatClient.Builder builder) {
			this.chat = builder.build();
		}

		@GetMapping(path = "/chat", produces = MediaType.TEXT_PLAIN_VALUE)
		Flux<String> chat() {
			return this.chat.prompt().user("Tell me a story").stream().content();
		}

	}

}
