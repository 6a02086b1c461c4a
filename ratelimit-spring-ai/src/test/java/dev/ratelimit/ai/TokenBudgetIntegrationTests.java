package dev.ratelimit.ai;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.test.Race;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A daily budget of 1,000 tokens per user on Redis, applied by {@code ratelimit.ai.rule} to the auto-configured
 * {@code ChatClient.Builder}, with a stand-in model that reports 150 tokens per call: of 20 parallel calls of one
 * user, exactly 6 reach the model and the others are refused; the usage read afterwards says 900 used. Each call
 * reserves 150 (the rule's cost, {@code #{maxTokens ?: 150}}), so the outcome is exact whatever the order of the
 * calls: 6 reservations make 900, a 7th would make 1,050.
 */
@RedisStandaloneTest
@SpringBootTest(classes = TokenBudgetTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.name=ratelimit-ai-test")
class TokenBudgetIntegrationTests {

	@Autowired
	private ChatClient.Builder builder;

	@Autowired
	private UsageReportingChatModel model;

	@Autowired
	private RateLimitUsage usage;

	private ChatClient chat;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@BeforeEach
	void chatClient() {
		this.chat = this.builder.build();
		this.model.reports(50, 100);
	}

	@Test
	void twentyParallelCallsOfOneUserGetSixOfTheirThousandTokens() throws Exception {
		String user = "user-" + UUID.randomUUID();
		int before = this.model.calls();
		ConcurrentLinkedQueue<String> answers = new ConcurrentLinkedQueue<>();
		ConcurrentLinkedQueue<RateLimitExceededException> refusals = new ConcurrentLinkedQueue<>();
		Race.run(20, (thread) -> asUser(user, () -> {
			try {
				answers.add(this.chat.prompt().user("Tell me a story").call().content());
			}
			catch (RateLimitExceededException ex) {
				refusals.add(ex);
			}
			return null;
		}));
		assertThat(this.model.calls() - before).as("calls that reached the model").isEqualTo(6);
		assertThat(answers).hasSize(6);
		assertThat(refusals).hasSize(14)
			.allSatisfy((refusal) -> assertThat(refusal.getVerdict().checks().get(0).policy().name())
				.isEqualTo("chat-tokens"));
		QuotaUsage read = this.usage.of("chat-tokens", user).orElseThrow();
		assertThat(read.used()).isEqualTo(900);
		assertThat(read.remaining()).isEqualTo(100);
		assertThatExceptionOfType(RateLimitExceededException.class).as("the 21st call")
			.isThrownBy(() -> asUser(user, () -> this.chat.prompt().user("One more").call().content()));
		assertThat(this.model.calls() - before).isEqualTo(6);
	}

	@Test
	void twentyParallelStreamsOfOneUserGetSixOfTheirThousandTokens() throws Exception {
		String user = "user-" + UUID.randomUUID();
		int before = this.model.calls();
		ConcurrentLinkedQueue<List<String>> streams = new ConcurrentLinkedQueue<>();
		ConcurrentLinkedQueue<RateLimitExceededException> refusals = new ConcurrentLinkedQueue<>();
		Race.run(20, (thread) -> asUser(user, () -> {
			try {
				streams.add(this.chat.prompt().user("Tell me a story").stream().content().collectList().block());
			}
			catch (RateLimitExceededException ex) {
				refusals.add(ex);
			}
			return null;
		}));
		assertThat(this.model.calls() - before).as("streams that reached the model; streams %s, refusals %s, used %s",
				streams, refusals.size(), this.usage.of("chat-tokens", user).orElseThrow().used()).isEqualTo(6);
		assertThat(streams).hasSize(6).allSatisfy((chunks) -> assertThat(chunks).hasSize(5));
		assertThat(refusals).hasSize(14);
		assertThat(this.usage.of("chat-tokens", user).orElseThrow().used()).isEqualTo(900);
	}

	private static <T> T asUser(String user, Supplier<T> call) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/chat");
		request.addHeader("X-User", user);
		RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));
		try {
			return call.get();
		}
		finally {
			RequestContextHolder.resetRequestAttributes();
		}
	}

}
