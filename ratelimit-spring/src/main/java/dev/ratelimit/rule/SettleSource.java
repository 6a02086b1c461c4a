package dev.ratelimit.rule;

import java.math.BigDecimal;
import java.math.RoundingMode;

import dev.ratelimit.RateLimitCheck;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Where a rule whose cost is known only after the response finds it ({@code rules.<name>.settle}): a response header
 * ({@code header:X-Usage-Tokens}), a SpEL template over the {@link SettleResponse} ({@code #{...}}), or nowhere but
 * the handler's own report ({@link #code()}, for a rule with a {@code cost} of its own and no {@code settle}). Units
 * reported from code always win over the source (see {@link CostSettlement}).
 * <p>
 * What the source gives is read as units: a number, or a string holding one, rounded up; one that is not a number or
 * is negative settles nothing (the estimate stands) and is logged; one above {@link RateLimitCheck#MAX_COST} is capped.
 */
public final class SettleSource {

	private static final Log logger = LogFactory.getLog(SettleSource.class);

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private static final TemplateParserContext TEMPLATE = new TemplateParserContext("#{", "}");

	private static final SettleSource CODE = new SettleSource(null, null, "code");

	private final @Nullable String header;

	private final @Nullable Expression expression;

	private final String description;

	private SettleSource(@Nullable String header, @Nullable Expression expression, String description) {
		this.header = header;
		this.expression = expression;
		this.description = description;
	}

	/** Returns the source of a rule settled from code only: it reads nothing from the response. */
	public static SettleSource code() {
		return CODE;
	}

	/**
	 * Returns a source that reads a response header.
	 * @param name the header's name
	 * @return the source
	 */
	public static SettleSource header(String name) {
		if (name.isBlank()) {
			throw new IllegalArgumentException("header: needs a header name, e.g. header:X-Usage-Tokens");
		}
		return new SettleSource(name.trim(), null, "header " + name.trim());
	}

	/**
	 * Returns a source that evaluates a SpEL template over the {@link SettleResponse}.
	 * @param template the template, e.g. {@code #{headers.getFirst('X-Usage-Tokens')}}
	 * @return the source
	 * @throws ParseException when it is not valid SpEL
	 */
	public static SettleSource expression(String template) {
		return new SettleSource(null, PARSER.parseExpression(template.trim(), TEMPLATE), template.trim());
	}

	/**
	 * Parses a {@code settle} property: {@code header:<Name>} or a SpEL template {@code #{...}}.
	 * @param value the property's value
	 * @return the source
	 * @throws IllegalArgumentException when it is neither
	 * @throws ParseException when the template is not valid SpEL
	 */
	public static SettleSource parse(String value) {
		String trimmed = value.trim();
		if (trimmed.regionMatches(true, 0, "header:", 0, 7)) {
			return header(trimmed.substring(7));
		}
		if (trimmed.contains("#{")) {
			return expression(trimmed);
		}
		throw new IllegalArgumentException("'" + value + "' is neither header:<Name> nor a SpEL template #{...}");
	}

	/** Returns whether this source reads nothing from the response ({@link #code()}). */
	public boolean isCodeOnly() {
		return this == CODE;
	}

	/**
	 * Reads the units a request used from its response.
	 * @param response the response
	 * @return the units, or {@code null} when the response does not say (the estimate stands)
	 */
	public @Nullable Long read(SettleResponse response) {
		if (this.header != null) {
			return units(response.headers().getFirst(this.header));
		}
		if (this.expression == null) {
			return null;
		}
		Object value;
		try {
			value = this.expression.getValue(evaluationContext(response));
		}
		catch (RuntimeException ex) {
			logger.warn("settle expression '" + this.description + "' failed (" + ex.getMessage()
					+ "); the request keeps its estimate");
			return null;
		}
		return units(value);
	}

	/**
	 * Evaluates the template for a response as {@link #read} does, letting a failure through: for checks at start-up.
	 * @param response the response
	 * @return what the template gives
	 */
	public @Nullable Object evaluate(SettleResponse response) {
		return (this.expression != null) ? this.expression.getValue(evaluationContext(response)) : null;
	}

	private static StandardEvaluationContext evaluationContext(SettleResponse response) {
		StandardEvaluationContext context = new StandardEvaluationContext(response);
		context.setVariable("status", response.status());
		context.setVariable("headers", response.headers());
		return context;
	}

	/**
	 * Converts what a source or a {@code @RateLimited} settle expression gave into units: {@code null} for nothing, a
	 * value that is not a number or is negative (logged), else the number rounded up, capped to
	 * {@link RateLimitCheck#MAX_COST}.
	 * @param value the value
	 * @return the units, or {@code null}
	 */
	public static @Nullable Long units(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		BigDecimal number;
		try {
			number = (value instanceof BigDecimal decimal) ? decimal : new BigDecimal(value.toString().trim());
		}
		catch (NumberFormatException ex) {
			logger.warn("A settled cost of '" + value + "' is not a number; the request keeps its estimate");
			return null;
		}
		if (number.signum() < 0) {
			logger.warn("A settled cost of " + value + " is negative; the request keeps its estimate");
			return null;
		}
		if (number.compareTo(BigDecimal.valueOf(RateLimitCheck.MAX_COST)) >= 0) {
			return RateLimitCheck.MAX_COST;
		}
		return number.setScale(0, RoundingMode.CEILING).longValueExact();
	}

	/** Describes the source: {@code header X-Usage-Tokens}, the template, or {@code code}. */
	@Override
	public String toString() {
		return this.description;
	}

}
