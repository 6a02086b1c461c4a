package dev.ratelimit.sample.ai;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.ratelimit.sample.SampleQuotas;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /api/chat}: the "AI" endpoint streams its answer token by token and then its usage, and the daily token
 * budget of the API key counts exactly the tokens the model reported; a spent budget answers 429 before any token.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		// as SampleApplicationIntegrationTests (the same context): the embedded Redis, and a store budget for a loaded
		// machine
		properties = { "sample.embedded-redis=always", "ratelimit.redis.timeout=5s" })
class ChatEndpointIntegrationTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private ApplicationContext context;

	@BeforeEach
	void restore() {
		SampleQuotas.restore(this.context);
	}

	@Test
	void theAnswerStreamsTokenByTokenThenItsUsageWhichTheBudgetCounts() throws Exception {
		HttpResponse<Stream<String>> response = chat("what is a token budget", 20, "demo-free-key");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("text/event-stream"));
		List<String> events = new ArrayList<>();
		List<String> data = new ArrayList<>();
		response.body().forEach((line) -> {
			if (line.startsWith("event:")) {
				events.add(line.substring(6));
			}
			else if (line.startsWith("data:")) {
				data.add(line.substring(5));
			}
		});
		assertThat(events).hasSize(21).endsWith("usage").filteredOn("token"::equals).hasSize(20);
		JsonNode usage = json.readTree(data.get(data.size() - 1));
		assertThat(usage.get("promptTokens").asInt()).isEqualTo(5);
		assertThat(usage.get("completionTokens").asInt()).isEqualTo(20);
		assertThat(usage.get("totalTokens").asInt()).isEqualTo(25);
		JsonNode quota = usage("demo-free-key");
		assertThat(quota.get("quota").asString()).isEqualTo("chat-tokens");
		assertThat(quota.get("limit").asLong()).isEqualTo(2000);
		assertThat(quota.get("used").asLong()).as("reserved 20 + the prompt's tokens, settled at the 25 reported")
			.isEqualTo(25);
	}

	/**
	 * The free key's 2,000 tokens a day: each call reserves 1,001 (its maxTokens and the prompt's one token) and is
	 * settled at the ~55 the stand-in reports, so calls are admitted while at most 999 are used, and the budget then
	 * holds exactly what the model reported.
	 */
	@Test
	void aSpentBudgetAnswers429BeforeAnyToken() throws Exception {
		long reported = 0;
		int admitted = 0;
		HttpResponse<Stream<String>> response;
		while ((response = chat("hi", 1000, "demo-free-key")).statusCode() == 200 && admitted < 100) {
			List<String> lines = response.body().toList();
			reported += json.readTree(lines.stream().filter((line) -> line.startsWith("data:{"))
				.reduce((first, second) -> second).orElseThrow().substring(5)).get("totalTokens").asLong();
			admitted++;
			assertThat(usage("demo-free-key").get("used").asLong()).as("after call %d", admitted).isEqualTo(reported);
		}
		assertThat(response.statusCode()).isEqualTo(429);
		assertThat(response.headers().firstValue("Retry-After")).isPresent();
		assertThat(response.body().toList()).noneMatch((line) -> line.startsWith("event:token"));
		assertThat(reported).as("used when the last call was admitted").isGreaterThan(999 - reported / admitted)
			.isLessThanOrEqualTo(999 + reported / admitted);
		assertThat(2000 - reported).as("what is left is less than a reservation").isLessThan(1001);
		assertThat(usage("demo-free-key").get("used").asLong()).isEqualTo(reported);
	}

	@Test
	void maxTokensOutOfRangeIs400() throws Exception {
		assertThat(chat("hi", 0, "demo-free-key").statusCode()).isEqualTo(400);
		assertThat(chat("hi", 1001, "demo-free-key").statusCode()).isEqualTo(400);
	}

	private HttpResponse<Stream<String>> chat(String question, int maxTokens, String apiKey) throws Exception {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/api/chat?q=" + question.replace(" ", "+")
					+ "&maxTokens=" + maxTokens))
			.header("X-API-Key", apiKey)
			.header("Accept", "text/event-stream")
			.GET()
			.build();
		return client.send(request, HttpResponse.BodyHandlers.ofLines());
	}

	private JsonNode usage(String apiKey) throws Exception {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/api/usage?quota=chat-tokens"))
			.header("X-API-Key", apiKey)
			.GET()
			.build();
		return json.readTree(client.send(request, HttpResponse.BodyHandlers.ofString()).body());
	}

}
