package dev.ratelimit.key;

import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * SpEL templates such as {@code #{request.getHeader('X-Tenant')}} over an HTTP request, parsed once at start-up. The
 * root object has a {@code request} property, the {@link RateLimitRequest} (whose methods carry the Servlet API's
 * names); the {@code #request} variable is the same request; {@code @beanName} refers to beans. Expressions come from
 * the application's own configuration, never from clients.
 */
public final class RequestExpressions {

	private static final TemplateParserContext TEMPLATE = new TemplateParserContext("#{", "}");

	private final SpelExpressionParser parser = new SpelExpressionParser(
			new SpelParserConfiguration(SpelCompilerMode.MIXED, RequestExpressions.class.getClassLoader()));

	private final @Nullable BeanResolver beanResolver;

	/**
	 * @param beanResolver resolves {@code @beanName} references, or {@code null} without a bean factory
	 */
	public RequestExpressions(@Nullable BeanResolver beanResolver) {
		this.beanResolver = beanResolver;
	}

	/** Returns whether a value is a template, i.e. contains {@code #{...}}. */
	public static boolean isTemplate(String value) {
		return value.contains("#{");
	}

	/**
	 * Parses a template.
	 * @throws ParseException when it is not valid SpEL, or calls on the request what a {@link RateLimitRequest} does
	 * not offer
	 */
	public Expression parse(String template) {
		Expression expression = this.parser.parseExpression(template, TEMPLATE);
		RequestReferences.check(expression);
		return expression;
	}

	/** Evaluates a parsed template against a request. */
	public @Nullable Object evaluate(Expression expression, RateLimitRequest request) {
		StandardEvaluationContext context = new StandardEvaluationContext(new Root(request));
		context.setVariable("request", request);
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		return expression.getValue(context);
	}

	/** The root object of request expressions. */
	public static final class Root {

		private final RateLimitRequest request;

		Root(RateLimitRequest request) {
			this.request = request;
		}

		public RateLimitRequest getRequest() {
			return this.request;
		}

	}

}
