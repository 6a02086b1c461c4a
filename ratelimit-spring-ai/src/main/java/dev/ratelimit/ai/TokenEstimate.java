package dev.ratelimit.ai;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.rule.CostResolver;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * How many tokens a chat request reserves before the model is called: what {@link TokenRateLimitAdvisor} admits or
 * refuses, and then settles with the tokens the model reports.
 */
@FunctionalInterface
public interface TokenEstimate {

	/**
	 * @param root the prompt, its options and the request the call runs in
	 * @return the tokens to reserve, at least 1
	 */
	long estimate(TokenEstimateRoot root);

	/**
	 * A fixed estimate.
	 * @param tokens the tokens, at least 1
	 * @return the estimate
	 */
	static TokenEstimate fixed(long tokens) {
		if (tokens < 1 || tokens > RateLimitCheck.MAX_COST) {
			throw new IllegalArgumentException("tokens must be between 1 and " + RateLimitCheck.MAX_COST);
		}
		return (root) -> tokens;
	}

	/**
	 * Parses a rule's {@code cost} as a chat request's estimate: an integer, or a SpEL template {@code #{...}} whose
	 * root is a {@link TokenEstimateRoot} ({@code prompt}, {@code options}, {@code maxTokens}, {@code promptTokens},
	 * {@code request}, {@code context}); {@code @beanName} refers to beans. What a template yields becomes a cost as
	 * for any rule ({@link CostResolver#costOf}): rounded up, at least 1; an expression that fails counts the
	 * {@code fallback} tokens.
	 * @param property the property the value comes from, named when it is invalid
	 * @param value the value
	 * @param beans resolves {@code @beanName}, or {@code null}
	 * @return the estimate
	 * @throws InvalidRateLimitRuleException naming the property when the value is neither
	 */
	static TokenEstimate parse(String property, String value, @Nullable BeanResolver beans) {
		String trimmed = value.trim();
		if (trimmed.contains("#{")) {
			Expression expression;
			try {
				expression = new SpelExpressionParser().parseExpression(trimmed, new TemplateParserContext("#{", "}"));
			}
			catch (ParseException ex) {
				throw new InvalidRateLimitRuleException(property, "'" + value + "' is not a valid SpEL template: "
						+ ex.getMessage(), "Fix the expression, e.g. #{maxTokens ?: 1000}");
			}
			return (root) -> {
				StandardEvaluationContext context = new StandardEvaluationContext(root);
				if (beans != null) {
					context.setBeanResolver(beans);
				}
				return CostResolver.costOf(expression.getValue(context));
			};
		}
		try {
			return fixed(Long.parseLong(trimmed));
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(property, "'" + value + "' is neither a positive integer nor a"
					+ " SpEL template", "Set it to the tokens a call reserves, e.g. 1000, or #{maxTokens ?: 1000}");
		}
	}

}
