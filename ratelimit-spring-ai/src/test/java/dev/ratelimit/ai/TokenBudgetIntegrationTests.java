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
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

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
		this.model.failing(false);
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

	@Test
	void aCallThatUsesLessThanItsEstimateIsGivenTheDifferenceBack() {
		String user = "user-" + UUID.randomUUID();
		assertThat(asUser(user, () -> this.chat.prompt().user("Hi").options(ChatOptions.builder().maxTokens(400))
			.call().content())).isNotEmpty();
		assertThat(used(user)).as("reserved 400, reported 150").isEqualTo(150);
	}

	@Test
	void callsThatUseMoreThanTheirEstimateGoIntoDebtAndTheNextIsRefused() {
		String user = "user-" + UUID.randomUUID();
		int before = this.model.calls();
		// each call reserves 100 and is charged 50 more: the 7th is admitted at 900 + 100 and ends at 1,050
		for (int i = 0; i < 7; i++) {
			asUser(user, () -> this.chat.prompt().user("Hi").options(ChatOptions.builder().maxTokens(100))
				.call().content());
		}
		assertThat(this.model.calls() - before).isEqualTo(7);
		assertThat(this.usage.of("chat-tokens", user).orElseThrow().remaining()).isZero();
		assertThatExceptionOfType(RateLimitExceededException.class).as("in debt")
			.isThrownBy(() -> asUser(user, () -> this.chat.prompt().user("Hi")
				.options(ChatOptions.builder().maxTokens(1))
				.call()
				.content()));
		assertThat(this.model.calls() - before).isEqualTo(7);
	}

	@Test
	void aCallThatFailsKeepsItsEstimateCharged() {
		String user = "user-" + UUID.randomUUID();
		this.model.failing(true);
		assertThatIllegalStateException().isThrownBy(() -> asUser(user, () -> this.chat.prompt().user("Hi")
			.options(ChatOptions.builder().maxTokens(400))
			.call()
			.content()));
		assertThat(used(user)).isEqualTo(400);
	}

	@Test
	void aStreamSettlesWithTheUsageOfItsLastChunkBeforeItCompletes() {
		String user = "user-" + UUID.randomUUID();
		this.model.reports(30, 90);
		List<String> chunks = asUser(user, () -> this.chat.prompt().user("Hi")
			.options(ChatOptions.builder().maxTokens(400))
			.stream()
			.content()
			.collectList()
			.block());
		assertThat(chunks).hasSize(5);
		assertThat(used(user)).as("reserved 400, reported 120 in the last chunk").isEqualTo(120);
	}

	@Test
	void aStreamCancelledBeforeItsUsageKeepsItsEstimateCharged() {
		String user = "user-" + UUID.randomUUID();
		List<String> chunks = asUser(user, () -> this.chat.prompt().user("Hi")
			.options(ChatOptions.builder().maxTokens(400))
			.stream()
			.content()
			.take(2)
			.collectList()
			.block());
		assertThat(chunks).hasSize(2);
		assertThat(used(user)).isEqualTo(400);
	}

	@Test
	void theSubjectParameterNamesTheSubjectOutsideAWebRequest() {
		String user = "user-" + UUID.randomUUID();
		this.chat.prompt().user("Hi").advisors((advisor) -> advisor.param(TokenRateLimitAdvisor.SUBJECT, user))
			.call()
			.content();
		assertThat(used(user)).isEqualTo(150);
	}

	private long used(String user) {
		return this.usage.of("chat-tokens", user).orElseThrow().used();
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
