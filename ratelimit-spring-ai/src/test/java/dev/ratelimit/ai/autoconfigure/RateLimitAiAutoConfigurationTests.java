package dev.ratelimit.ai.autoconfigure;

import java.util.List;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.ai.TokenRateLimitAdvisor;
import dev.ratelimit.ai.UsageReportingChatModel;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.store.StoreRateLimiter;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.ai.*}: the advisor of the named rule on every client of the auto-configured builder, or only on
 * those it is added to; start-up fails naming the property for a rule that does not exist, that also limits HTTP
 * requests, that cannot be settled, or a cost or weight that is invalid; nothing without the property or without
 * Spring AI; a user's own advisor replaces it.
 */
class RateLimitAiAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitAiAutoConfiguration.class,
				ChatClientAutoConfiguration.class))
		.withBean(ChatModel.class, () -> new UsageReportingChatModel(10, 20))
		.withPropertyValues("ratelimit.store=local", "ratelimit.rules.tokens.match.enabled=false",
				"ratelimit.rules.tokens.calendar=day", "ratelimit.rules.tokens.limit=1000",
				"ratelimit.rules.tokens.cost=#{maxTokens ?: 100}");

	@Test
	void theRulesAdvisorLimitsEveryClientOfTheAutoConfiguredBuilder() {
		this.runner.withPropertyValues("ratelimit.ai.rule=tokens").run((context) -> {
			assertThat(context).hasSingleBean(TokenRateLimitAdvisor.class);
			TokenRateLimitAdvisor advisor = context.getBean(TokenRateLimitAdvisor.class);
			assertThat(advisor.rule()).isEqualTo("tokens");
			assertThat(advisor.getOrder()).isEqualTo(TokenRateLimitAdvisor.DEFAULT_ORDER);
			ChatClient chat = context.getBean(ChatClient.Builder.class).build();
			chat.prompt().user("Hi").advisors((a) -> a.param(TokenRateLimitAdvisor.SUBJECT, "u1")).call().content();
			assertThat(used(context, "u1")).as("reserved 100, settled at the 30 reported").isEqualTo(30);
		});
	}

	@Test
	void withoutTheDefaultAdvisorTheBeanIsAddedByHand() {
		this.runner.withPropertyValues("ratelimit.ai.rule=tokens", "ratelimit.ai.default-advisor=false")
			.run((context) -> {
				assertThat(context).hasSingleBean(TokenRateLimitAdvisor.class)
					.doesNotHaveBean(ChatClientBuilderCustomizer.class);
				ChatClient plain = context.getBean(ChatClient.Builder.class).build();
				plain.prompt().user("Hi").advisors((a) -> a.param(TokenRateLimitAdvisor.SUBJECT, "u2")).call()
					.content();
				assertThat(used(context, "u2")).as("a client without the advisor").isZero();
				ChatClient limited = context.getBean(ChatClient.Builder.class)
					.defaultAdvisors(context.getBean(TokenRateLimitAdvisor.class))
					.build();
				limited.prompt().user("Hi").advisors((a) -> a.param(TokenRateLimitAdvisor.SUBJECT, "u2")).call()
					.content();
				assertThat(used(context, "u2")).isEqualTo(30);
			});
	}

	@Test
	void weightsAndOrderAreApplied() {
		this.runner.withPropertyValues("ratelimit.ai.rule=tokens", "ratelimit.ai.prompt-token-weight=1",
				"ratelimit.ai.completion-token-weight=4", "ratelimit.ai.order=42").run((context) -> {
					assertThat(context.getBean(TokenRateLimitAdvisor.class).getOrder()).isEqualTo(42);
					context.getBean(ChatClient.Builder.class).build().prompt().user("Hi")
						.advisors((a) -> a.param(TokenRateLimitAdvisor.SUBJECT, "u3")).call().content();
					assertThat(used(context, "u3")).as("10 prompt tokens + 4 x 20 completion tokens").isEqualTo(90);
				});
	}

	@Test
	void anUndeclaredRuleFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.ai.rule=tokenz")
			.run((context) -> assertFailure(context, "ratelimit.ai.rule", "'tokenz'", "declared: tokens"));
	}

	@Test
	void aRuleThatAlsoLimitsHttpRequestsFailsStartUp() {
		this.runner.withPropertyValues("ratelimit.ai.rule=tokens", "ratelimit.rules.tokens.match.enabled=true")
			.run((context) -> assertFailure(context, "ratelimit.rules.tokens.match.enabled", "also limits HTTP"));
	}

	@Test
	void aRuleThatCannotBeSettledFailsStartUp() {
		this.runner
			.withPropertyValues("ratelimit.ai.rule=log", "ratelimit.rules.log.match.enabled=false",
					"ratelimit.rules.log.algorithm=sliding-window-log", "ratelimit.rules.log.limit=1000",
					"ratelimit.rules.log.period=1h")
			.run((context) -> assertFailure(context, "ratelimit.rules.log.algorithm", "sliding-window-log"));
	}

	@Test
	void anInvalidCostOrWeightFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.ai.rule=tokens", "ratelimit.rules.tokens.cost=#{(maxTokens}")
			.run((context) -> assertFailure(context, "ratelimit.rules.tokens.cost", "not a valid SpEL template"));
		this.runner.withPropertyValues("ratelimit.ai.rule=tokens", "ratelimit.ai.completion-token-weight=-1")
			.run((context) -> assertFailure(context, "ratelimit.ai.completion-token-weight", "negative"));
	}

	@Test
	void anUnknownAiPropertyFailsStartUpNamingTheValidOnes() {
		this.runner.withPropertyValues("ratelimit.ai.rules=tokens")
			.run((context) -> assertFailure(context, "ratelimit.ai.rules", "no such rate limit property"));
	}

	@Test
	void nothingWithoutTheRuleOrWithoutSpringAi() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(TokenRateLimitAdvisor.class)
			.doesNotHaveBean(ChatClientBuilderCustomizer.class));
		this.runner.withPropertyValues("ratelimit.ai.rule=tokens")
			.withClassLoader(new FilteredClassLoader(ChatClient.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TokenRateLimitAdvisor.class));
	}

	@Test
	void aUsersOwnAdvisorReplacesIt() {
		this.runner.withPropertyValues("ratelimit.ai.rule=tokens")
			.withBean("ownAdvisor", TokenRateLimitAdvisor.class,
					() -> TokenRateLimitAdvisor.builder(new StoreRateLimiter(
							new LocalRateLimitStore(10)), new RateLimitRules(List.of()), "own")
						.build())
			.run((context) -> assertThat(context.getBean(TokenRateLimitAdvisor.class).rule()).isEqualTo("own"));
	}

	private static long used(AssertableApplicationContext context, String subject) {
		return context.getBean(RateLimitUsage.class).of("tokens", subject).orElseThrow().used();
	}

	private static void assertFailure(AssertableApplicationContext context, String property, String... problem) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		while (failure != null && !(failure instanceof InvalidRateLimitConfigurationException)) {
			failure = failure.getCause();
		}
		assertThat(failure).as("the cause of %s", context.getStartupFailure())
			.isInstanceOfSatisfying(InvalidRateLimitConfigurationException.class, (invalid) -> {
				assertThat(invalid.getProperty()).isEqualTo(property);
				assertThat(invalid.getProblem()).contains(problem);
			});
	}

}
