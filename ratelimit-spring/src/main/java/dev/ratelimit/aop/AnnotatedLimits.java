package dev.ratelimit.aop;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.zip.CRC32;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimited;
import dev.ratelimit.Settlement;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.Periods;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The {@link RateLimited} annotations of one method (its own and its class's), compiled once.
 *
 * @param limits one entry per annotation of a rate (inline, or naming a rate rule)
 * @param adaptive the names of the {@code adaptive-concurrency} rules that annotations name, whose limits the call
 * takes a place under before any rate is checked
 * @param fallback answers a denied call instead of the exception, or {@code null}
 */
record AnnotatedLimits(List<Limit> limits, List<String> adaptive, @Nullable FallbackMethod fallback) {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	/**
	 * One compiled annotation.
	 *
	 * @param rule the name of the yml rule, or {@code null} for an inline rule (looked up per call, so that
	 * overrides and reloads apply)
	 * @param policy the inline policy (for a named rule: its policy at start-up, used only if it disappears)
	 * @param key the key expression, or {@code null}
	 * @param cost the cost expression, or {@code null}
	 * @param fixedCost the cost when it is a constant, else 0
	 * @param shadow whether it only observes
	 * @param settle the expression over {@code #result} that gives the units the call really cost, or {@code null}
	 */
	record Limit(@Nullable String rule, RateLimitPolicy policy, @Nullable Expression key,
			@Nullable Expression cost, long fixedCost, boolean shadow, @Nullable Expression settle) {
	}

	/** Returns whether an annotation settles its cost from the call's value. */
	boolean settles() {
		for (Limit limit : this.limits) {
			if (limit.settle() != null) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Compiles the annotations on a method of a class.
	 * @throws InvalidRateLimitRuleException naming the method and attribute when one is invalid
	 */
	private static InvalidRateLimitRuleException notDistinct(String where) {
		return new InvalidRateLimitRuleException(where, "distinct counts values of HTTP requests, which a method call"
				+ " does not present", "Apply the distinct rule to paths (ratelimit.rules.<name>.match), or use another"
						+ " algorithm");
	}

	/**
	 * Compiles the annotations on a method of a class.
	 * @param beanName the bean's name when known, for errors
	 * @throws InvalidRateLimitRuleException naming the method and attribute when one is invalid
	 */
	static AnnotatedLimits compile(Method method, Class<?> targetClass, RateLimitRules rules,
			Predicate<String> adaptiveRule, @Nullable String beanName) {
		Set<RateLimited> annotations = new LinkedHashSet<>();
		annotations.addAll(AnnotatedElementUtils.findMergedRepeatableAnnotations(targetClass, RateLimited.class));
		annotations.addAll(AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class));
		List<Limit> limits = new ArrayList<>();
		List<String> adaptive = new ArrayList<>();
		String where = "@RateLimited on " + targetClass.getName() + "." + method.getName();
		String fallbackName = null;
		for (RateLimited annotation : annotations) {
			fallbackName = fallbackName(annotation, fallbackName, where);
			if (!annotation.rule().isEmpty() && adaptiveRule.test(annotation.rule())) {
				adaptive.add(adaptive(annotation, where));
			}
			else {
				limits.add(compile(annotation, method, targetClass, rules, where));
			}
		}
		FallbackMethod fallback = (fallbackName != null) ? FallbackMethod.resolve(fallbackName, method, targetClass,
				(beanName != null) ? where + " of bean '" + beanName + "'" : where) : null;
		return new AnnotatedLimits(List.copyOf(limits), List.copyOf(adaptive), fallback);
	}

	/** Returns the fallback method's name that an annotation adds to those before it. */
	private static @Nullable String fallbackName(RateLimited annotation, @Nullable String before, String where) {
		String name = annotation.fallbackMethod().trim();
		if (name.isEmpty()) {
			return before;
		}
		if (annotation.shadow()) {
			throw new InvalidRateLimitRuleException(where + " (fallbackMethod)",
					"a shadow limit never denies, so its fallback '" + name + "' would never be called",
					"Remove shadow = true, or the fallbackMethod");
		}
		if (before != null && !before.equals(name)) {
			throw new InvalidRateLimitRuleException(where + " (fallbackMethod)",
					"the annotations of one call name two fallbacks, '" + before + "' and '" + name + "'",
					"Name one fallbackMethod for the call (on the method or on the class)");
		}
		return name;
	}

	/**
	 * Checks an annotation that names an adaptive rule: the limit is this instance's, for every caller, so the
	 * attributes of a rate make no sense on it.
	 */
	private static String adaptive(RateLimited annotation, String where) {
		String attribute = !annotation.key().isBlank() ? "key" : !annotation.cost().isBlank() ? "cost"
				: annotation.shadow() ? "shadow" : null;
		if (attribute != null) {
			throw new InvalidRateLimitRuleException(where + " (" + attribute + ")",
					"has no meaning with adaptive-concurrency rule '" + annotation.rule()
							+ "', a limit on this instance's calls in progress",
					"Remove it (set mode: shadow on the rule to only observe), or add a second @RateLimited for a rate");
		}
		return annotation.rule();
	}

	private static Limit compile(RateLimited annotation, Method method, Class<?> targetClass, RateLimitRules rules,
			String where) {
		Expression key = expression(annotation.key(), where + " (key)");
		Expression cost = null;
		long fixedCost = 0;
		String costText = annotation.cost().trim();
		if (!costText.isEmpty()) {
			try {
				fixedCost = Long.parseLong(costText);
				if (fixedCost < 1) {
					throw new InvalidRateLimitRuleException(where + " (cost)", "must be at least 1 but was " + fixedCost,
							"Use a positive cost or a SpEL expression");
				}
			}
			catch (NumberFormatException ex) {
				cost = expression(costText, where + " (cost)");
			}
		}
		if (!annotation.rule().isEmpty()) {
			RateLimitRule rule = rules.get(annotation.rule())
				.orElseThrow(() -> new InvalidRateLimitRuleException(where + " (rule)",
						"there is no rule '" + annotation.rule() + "' in ratelimit.rules",
						"Declare ratelimit.rules." + annotation.rule() + " or declare the limit inline"));
			if (rule.distinct() != null) {
				throw notDistinct(where + " (rule)");
			}
			if (rule.countWhen() != null && !annotation.settle().isBlank()) {
				throw new InvalidRateLimitRuleException(where + " (settle)", "rule '" + rule.name() + "' has"
						+ " count-when, and both would change what a call counts when it ends",
						"Remove settle, or count-when from the rule");
			}
			return new Limit(rule.name(), rule.policy(), key, cost, fixedCost, annotation.shadow(),
					settle(annotation, rule.policy(), where));
		}
		if (annotation.algorithm() == Algorithm.DISTINCT) {
			throw notDistinct(where + " (algorithm)");
		}
		if (annotation.limit() < 1) {
			throw new InvalidRateLimitRuleException(where + " (limit)", "an inline limit needs limit >= 1",
					"Set limit and period, or refer to a configured rule with rule = \"name\"");
		}
		Duration period;
		try {
			period = Periods.parse(annotation.period());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(where + " (period)",
					"'" + annotation.period() + "' is not a duration", "Use " + Periods.FORMS);
		}
		String name = annotation.name().isEmpty() ? defaultName(method, targetClass) : annotation.name();
		try {
			RateLimitPolicy policy = new RateLimitPolicy(name, annotation.algorithm(), annotation.limit(), period,
					annotation.burst(), false);
			return new Limit(null, policy, key, cost, fixedCost, annotation.shadow(),
					settle(annotation, policy, where));
		}
		catch (RateLimitPolicy.InvalidPolicyException ex) {
			throw new InvalidRateLimitRuleException(where + " (" + ex.field().name().toLowerCase(Locale.ROOT) + ")",
					ex.getMessage(), "Fix the annotation's " + ex.field().name().toLowerCase(Locale.ROOT) + " attribute");
		}
	}

	private static @Nullable Expression settle(RateLimited annotation, RateLimitPolicy policy, String where) {
		if (annotation.settle().isBlank()) {
			return null;
		}
		if (!Settlement.supports(policy)) {
			throw new InvalidRateLimitRuleException(where + " (settle)", policy.algorithm().configName()
					+ " cannot be settled after the call", "Use algorithm gcra, token-bucket, leaky-bucket, fixed-window"
							+ " or sliding-window-counter, or remove settle");
		}
		return expression(annotation.settle(), where + " (settle)");
	}

	private static @Nullable Expression expression(String text, String where) {
		if (text.isBlank()) {
			return null;
		}
		try {
			return PARSER.parseExpression(text);
		}
		catch (ParseException ex) {
			throw new InvalidRateLimitRuleException(where, "'" + text + "' is not valid SpEL: " + ex.getMessage(),
					"Use an expression over the arguments such as #userId or #p0");
		}
	}

	/** Returns {@code Class.method} when it is a valid rule name, else a short stable name with a checksum. */
	static String defaultName(Method method, Class<?> targetClass) {
		String name = targetClass.getSimpleName() + "." + method.getName();
		if (RateLimitPolicy.isValidName(name)) {
			return name;
		}
		CRC32 crc = new CRC32();
		crc.update((targetClass.getName() + "#" + method.toGenericString()).getBytes(StandardCharsets.UTF_8));
		String head = method.getName().replaceAll("[^A-Za-z0-9._-]", "");
		head = head.substring(0, Math.min(head.length(), 23));
		return head + "-" + Long.toHexString(crc.getValue());
	}

}
