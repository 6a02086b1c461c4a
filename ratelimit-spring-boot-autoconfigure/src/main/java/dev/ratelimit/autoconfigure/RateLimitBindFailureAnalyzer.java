package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import dev.ratelimit.Algorithm;
import dev.ratelimit.rule.Periods;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.web.bind.annotation.RequestMethod;

/**
 * Explains a {@code ratelimit.*} value that cannot be converted to its type, such as {@code period: 10x}: which
 * property, the value, and the forms it accepts. Runs before Spring Boot's generic analyzer, which only reports the
 * conversion failure.
 */
class RateLimitBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
		String name = cause.getName().toString();
		if (!name.equals("ratelimit") && !name.startsWith("ratelimit.")) {
			return null;
		}
		ConfigurationProperty property = cause.getProperty();
		Class<?> type = cause.getTarget().getType().resolve(Object.class);
		String value = (property != null) ? "'" + property.getValue() + "'" : "the value";
		String origin = (property != null && property.getOrigin() != null) ? " (from " + property.getOrigin() + ")" : "";
		String description = "Invalid rate limit configuration '" + name + "': " + value + origin + " is not "
				+ expected(type) + ".";
		return new FailureAnalysis(description, "Fix '" + name + "'. Use " + forms(type) + ".", cause);
	}

	private static String expected(Class<?> type) {
		if (type == Duration.class) {
			return "a duration";
		}
		if (type == Algorithm.class || type == RateLimitProperties.RuleAlgorithm.class) {
			return "an algorithm";
		}
		if (type == RequestMethod.class) {
			return "an HTTP method";
		}
		if (type.isEnum()) {
			return "one of the accepted values";
		}
		return "a valid " + type.getSimpleName();
	}

	private static String forms(Class<?> type) {
		if (type == Duration.class) {
			return Periods.FORMS;
		}
		if (type.isEnum()) {
			return "one of " + Arrays.stream(type.getEnumConstants())
				.map((constant) -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.collect(Collectors.joining(", "));
		}
		if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
			return "a number";
		}
		return "a value of type " + type.getSimpleName() + " (see docs/configuration.md)";
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
