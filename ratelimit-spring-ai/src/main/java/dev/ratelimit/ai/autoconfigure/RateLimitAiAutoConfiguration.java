package dev.ratelimit.ai.autoconfigure;

import java.util.List;

import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Settlement;
import dev.ratelimit.ai.TokenEstimate;
import dev.ratelimit.ai.TokenRateLimitAdvisor;
import dev.ratelimit.ai.UsageTokens;
import dev.ratelimit.aop.CurrentRequest;
import dev.ratelimit.aop.ReactiveCurrentRequest;
import dev.ratelimit.aop.ServletCurrentRequest;
import dev.ratelimit.autoconfigure.RateLimitAopAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.web.RateLimitHeadersWriter;
import dev.ratelimit.web.RouteLookup;
import dev.ratelimit.web.ServletRateLimitRequests;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.env.Environment;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * With {@code ratelimit.ai.rule}, limits the tokens of Spring AI chat calls: a {@link TokenRateLimitAdvisor} of that
 * rule, added to every {@code ChatClient} built from the auto-configured {@code ChatClient.Builder}
 * ({@code ratelimit.ai.default-advisor}), its subject resolved from the rule's key against the current web request
 * as for {@code @RateLimited}. Start-up fails naming the property when the rule does not exist, also limits HTTP
 * requests, or has an algorithm that cannot be settled.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitAopAutoConfiguration.class },
		beforeName = "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
@ConditionalOnClass({ ChatClient.class, CallAdvisor.class })
@ConditionalOnBean(RateLimiter.class)
@EnableConfigurationProperties(RateLimitAiProperties.class)
public final class RateLimitAiAutoConfiguration {

	static final String RULE_PROPERTY = "ratelimit.ai.rule";

	RateLimitAiAutoConfiguration(Environment environment) {
		RateLimitAiPropertyNames.checkKnown(environment);
	}

	/** The rule {@code ratelimit.ai.rule} names, checked: it exists, limits no HTTP request, and can be settled. */
	static RateLimitRule aiRule(@Nullable String name, RateLimitRules rules) {
		if (name == null || name.isBlank()) {
			throw new InvalidRateLimitRuleException(RULE_PROPERTY, "names no rule",
					"Set it to the name of a rule under ratelimit.rules, or remove it");
		}
		RateLimitRule rule = rules.get(name.trim()).orElse(null);
		if (rule == null) {
			List<String> declared = rules.all().stream().map(RateLimitRule::name).toList();
			throw new InvalidRateLimitRuleException(RULE_PROPERTY, "names rule '" + name + "', which is not declared"
					+ (declared.isEmpty() ? "" : " (declared: " + String.join(", ", declared) + ")"),
					"Declare ratelimit.rules." + name + " (e.g. calendar: day, limit: 100000, match.enabled: false,"
							+ " cost: \"#{maxTokens ?: 1000}\"), or name a declared rule");
		}
		String prefix = "ratelimit.rules." + rule.name();
		if (rule.match().enabled()) {
			throw new InvalidRateLimitRuleException(prefix + ".match.enabled", "rule '" + rule.name()
					+ "' is the token budget of " + RULE_PROPERTY + " but also limits HTTP requests: each request"
					+ " would be counted in the same quota as the tokens", "Set " + prefix
							+ ".match.enabled=false (chat calls are limited by the advisor)");
		}
		if (!Settlement.supports(rule.policy())) {
			throw new InvalidRateLimitRuleException(prefix + ".algorithm", "rule '" + rule.name() + "' ("
					+ rule.policy().algorithm().configName() + ") cannot be settled with the tokens a model reports",
					"Use calendar: day|week|month, fixed-window, sliding-window-counter, token-bucket, gcra or"
							+ " leaky-bucket");
		}
		return rule;
	}

	private static UsageTokens tokens(RateLimitAiProperties ai) {
		if (negative(ai.getPromptTokenWeight())) {
			throw new InvalidRateLimitRuleException("ratelimit.ai.prompt-token-weight", "must not be negative",
					"Set it to what one prompt token counts, e.g. 1, or remove it to count the total");
		}
		if (negative(ai.getCompletionTokenWeight())) {
			throw new InvalidRateLimitRuleException("ratelimit.ai.completion-token-weight", "must not be negative",
					"Set it to what one completion token counts, e.g. 4, or remove it to count the total");
		}
		return new UsageTokens(ai.getPromptTokenWeight(), ai.getCompletionTokenWeight());
	}

	private static boolean negative(@Nullable Double weight) {
		return weight != null && !(weight >= 0);
	}

	/** The advisor of {@code ratelimit.ai.rule}, and the customizer that adds it to every client. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(prefix = "ratelimit.ai", name = "rule")
	static class AdvisorConfiguration {

		@Bean
		@ConditionalOnMissingBean
		TokenRateLimitAdvisor tokenRateLimitAdvisor(RateLimiter limiter, RateLimitRules rules,
				RateLimitProperties properties, RateLimitAiProperties ai, BeanFactory beanFactory,
				ObjectProvider<CurrentRequest> currentRequest,
				ObjectProvider<ReactiveCurrentRequest> reactiveCurrentRequest) {
			RateLimitRule rule = aiRule(ai.getRule(), rules);
			String prefix = "ratelimit.rules." + rule.name();
			RateLimitProperties.Rule configured = properties.getRules().get(rule.name());
			TokenEstimate estimate = (configured != null)
					? TokenEstimate.parse(prefix + ".cost", configured.getCost(), new BeanFactoryResolver(beanFactory))
					: TokenEstimate.fixed(1);
			return TokenRateLimitAdvisor.builder(limiter, rules, rule.name())
				.estimate(estimate)
				.tokens(tokens(ai))
				.currentRequest(currentRequest.getIfAvailable(CurrentRequest::none))
				.reactiveCurrentRequest(reactiveCurrentRequest.getIfAvailable(ReactiveCurrentRequest::none))
				.order(ai.getOrder())
				.build();
		}

		@Bean
		@ConditionalOnBooleanProperty(name = "ratelimit.ai.default-advisor", matchIfMissing = true)
		ChatClientBuilderCustomizer rateLimitChatClientBuilderCustomizer(TokenRateLimitAdvisor tokenRateLimitAdvisor) {
			return (builder) -> builder.defaultAdvisors(tokenRateLimitAdvisor);
		}

	}

	/**
	 * The servlet request of the current thread, for the rule's key, when the {@code @RateLimited} auto-configuration
	 * (which needs AspectJ) has not made it.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ HttpServletRequest.class, ServletRequestAttributes.class })
	@ConditionalOnProperty(prefix = "ratelimit.ai", name = "rule")
	static class ServletCurrentRequestConfiguration {

		@Bean
		@ConditionalOnMissingBean
		CurrentRequest rateLimitCurrentRequest(ObjectProvider<RateLimitHeadersWriter> headersWriter,
				ObjectProvider<ServletRateLimitRequests> requests, ObjectProvider<ClientIp> clientIp) {
			return new ServletCurrentRequest(headersWriter.getIfAvailable(), requests.getIfAvailable(
					() -> new ServletRateLimitRequests(clientIp.getIfAvailable(() -> ClientIp.DEFAULT),
							RouteLookup.matchedPattern())));
		}

	}

}
