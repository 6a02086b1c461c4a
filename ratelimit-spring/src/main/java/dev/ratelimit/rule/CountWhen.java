package dev.ratelimit.rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.ratelimit.Completion.Outcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Which outcomes of an admitted request or call count against a rule ({@code count-when}): the request consumes its
 * units before it runs, as for any rule, and they are given back when it ends with an outcome that does not count.
 * An outcome counts when any of the given conditions holds: its response status is one of {@code statuses}; it failed
 * with one of the {@code exceptions} (or an exception caused by one); the {@code expression} is {@code true}. A
 * request or call that never ran (denied by a later rule) does not count; one whose client went away counts (it may
 * have run to its end, and hanging up must not escape the limit).
 * <p>
 * The expression is SpEL over the outcome: {@code status} (the response status, {@code null} for a
 * {@code @RateLimited} call) and {@code exception} (the exception, or {@code null}), also as {@code #status} and
 * {@code #exception}; written as a template {@code #{status >= 500}} or plain {@code status >= 500}. An expression
 * that fails or gives no boolean counts the outcome (the conservative direction) and is logged.
 */
public final class CountWhen {

	private static final Log logger = LogFactory.getLog(CountWhen.class);

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private static final TemplateParserContext TEMPLATE = new TemplateParserContext("#{", "}");

	private final Set<Integer> statuses;

	private final List<Class<? extends Throwable>> exceptions;

	private final @Nullable Expression expression;

	/**
	 * @param statuses response statuses that count
	 * @param exceptions exception types that count (subtypes and exceptions caused by them too)
	 * @param expression a parsed expression ({@link #parse}) that says whether an outcome counts, or {@code null}
	 */
	public CountWhen(Set<Integer> statuses, List<Class<? extends Throwable>> exceptions,
			@Nullable Expression expression) {
		this.statuses = Set.copyOf(statuses);
		this.exceptions = List.copyOf(exceptions);
		this.expression = expression;
		if (this.statuses.isEmpty() && this.exceptions.isEmpty() && this.expression == null) {
			throw new IllegalArgumentException("count-when needs at least one condition");
		}
	}

	/**
	 * Parses an expression over an outcome: a template {@code #{...}} or a plain SpEL expression.
	 * @param text the expression
	 * @return the parsed expression
	 * @throws ParseException when it is not valid SpEL
	 */
	public static Expression parse(String text) {
		String trimmed = text.trim();
		return trimmed.contains("#{") ? PARSER.parseExpression(trimmed, TEMPLATE) : PARSER.parseExpression(trimmed);
	}

	/**
	 * Evaluates a parsed expression for an outcome.
	 * @param expression the expression
	 * @param status the response status, or {@code null}
	 * @param exception the exception, or {@code null}
	 * @return what it gives
	 */
	public static @Nullable Object evaluate(Expression expression, @Nullable Integer status,
			@Nullable Throwable exception) {
		StandardEvaluationContext context = new StandardEvaluationContext(new Ending(status, exception));
		context.setVariable("status", status);
		context.setVariable("exception", exception);
		return expression.getValue(context);
	}

	/**
	 * Returns whether a request or call that ended so counts against the rule: never one that did not run
	 * ({@link Outcome#REJECTED}), always one whose client went away ({@link Outcome#ABORTED}), else as
	 * {@link #counts(Integer, Throwable)} says.
	 * @param outcome how it ended
	 * @param status the response status, or {@code null} for a call
	 * @param exception what the request or call failed with, or {@code null}
	 * @return whether it counts
	 */
	public boolean counts(Outcome outcome, @Nullable Integer status, @Nullable Throwable exception) {
		return switch (outcome) {
			case REJECTED -> false;
			case ABORTED -> true;
			default -> counts(status, exception);
		};
	}

	/**
	 * Returns whether an outcome counts against the rule.
	 * @param status the response status, or {@code null} for a call
	 * @param exception what the request or call failed with, or {@code null}
	 * @return whether it counts
	 */
	public boolean counts(@Nullable Integer status, @Nullable Throwable exception) {
		if (status != null && this.statuses.contains(status)) {
			return true;
		}
		for (Throwable cause = exception; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			for (Class<? extends Throwable> type : this.exceptions) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
		}
		if (this.expression != null) {
			try {
				Object value = evaluate(this.expression, status, exception);
				if (value instanceof Boolean counted) {
					return counted;
				}
				logger.warn("count-when expression '" + this.expression.getExpressionString() + "' gave " + value
						+ ", not true or false; the outcome counts");
			}
			catch (RuntimeException ex) {
				logger.warn("count-when expression '" + this.expression.getExpressionString() + "' failed ("
						+ ex.getMessage() + "); the outcome counts");
			}
			return true;
		}
		return false;
	}

	/** Describes the conditions, e.g. {@code status [401, 403] or exception BadCredentialsException}. */
	@Override
	public String toString() {
		List<String> parts = new ArrayList<>();
		if (!this.statuses.isEmpty()) {
			parts.add("status " + new TreeSet<>(this.statuses));
		}
		if (!this.exceptions.isEmpty()) {
			parts.add("exception " + this.exceptions.stream().map(Class::getSimpleName).toList());
		}
		if (this.expression != null) {
			parts.add(this.expression.getExpressionString());
		}
		return String.join(" or ", parts);
	}

	/**
	 * The root object of a count-when expression.
	 *
	 * @param status the response status, or {@code null} for a call
	 * @param exception the exception, or {@code null}
	 */
	public record Ending(@Nullable Integer status, @Nullable Throwable exception) {

		/** Returns the status (SpEL reads {@code status} through this getter). */
		public @Nullable Integer getStatus() {
			return this.status;
		}

		/** Returns the exception (SpEL reads {@code exception} through this getter). */
		public @Nullable Throwable getException() {
			return this.exception;
		}

	}

}
