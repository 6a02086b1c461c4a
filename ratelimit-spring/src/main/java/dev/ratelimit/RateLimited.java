package dev.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Rate limits calls of a method (or of every method of a class) of any Spring bean. Refer to a rule of
 * {@code application.yml} by name ({@code @RateLimited("login")}), or declare one inline
 * ({@code @RateLimited(name = "reports", limit = 10, period = "1m", key = "#userId")}).
 * <p>
 * All annotations on a call (class and method, repeated) are evaluated in one atomic call. A denial throws
 * {@link RateLimitExceededException}; in Spring MVC it becomes the same 429 response as the filter's, and allowed
 * calls inside a web request also get rate limit headers.
 * <p>
 * {@code key} and {@code cost} are SpEL expressions over the method arguments ({@code #userId}, {@code #p0},
 * {@code #a0}) and beans ({@code @beanName}). Without a key, a call inside a web request uses the named rule's key (or
 * the client IP for inline rules), and any other call uses one global quota.
 * <p>
 * With {@link #fallbackMethod()}, a denied call answers what the named method of the same bean returns instead of
 * throwing.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

	/** Alias for {@link #rule()}. */
	@AliasFor("rule")
	String value() default "";

	/** Name of a rule in {@code ratelimit.rules}; when set, the inline attributes other than key and cost are ignored. */
	@AliasFor("value")
	String rule() default "";

	/** Name of an inline rule (1 to 32 of {@code [A-Za-z0-9._-]}); default: derived from the class and method. */
	String name() default "";

	/** Requests (units of cost) admitted per period, for an inline rule. */
	long limit() default 0;

	/** Period of an inline rule, e.g. {@code 1m}, {@code 10s} or {@code PT1H}. */
	String period() default "";

	/** Algorithm of an inline rule. */
	Algorithm algorithm() default Algorithm.GCRA;

	/** Burst of an inline bucket rule; 0 means the limit. */
	long burst() default 0;

	/** SpEL expression for the subject, e.g. {@code #userId}. */
	String key() default "";

	/** SpEL expression or integer for the cost; default: the named rule's cost in a web request, else 1. */
	String cost() default "";

	/**
	 * SpEL expression over the call's value, {@code #result} (and the arguments), giving the units the call really
	 * cost, e.g. {@code #result.usage().totalTokens()}: the cost (the annotation's, or the named rule's) is then an
	 * estimate reserved before the call, and the difference is charged (the quota may go into debt) or given back when
	 * the value arrives: the return value, the value of a {@code CompletableFuture} or {@code Mono}, or, for a
	 * {@code Flux}, the last element for which it gives a number, settled when the {@code Flux} ends (also when it is
	 * cancelled). A call that fails, or whose value gives no number, keeps its estimate. Not for
	 * {@code sliding-window-log}, nor beside a rule's {@code count-when}.
	 */
	String settle() default "";

	/** Whether the limit only observes (never throws). */
	boolean shadow() default false;

	/**
	 * Name of a method of the same bean that answers a denied call instead of the exception: it takes the same
	 * parameters, optionally followed by a {@link RateLimitExceededException} (or a {@link Verdict}), and returns a
	 * type the annotated method may return (for a {@code Mono}, {@code Flux} or {@code CompletableFuture}: its own
	 * publisher or future). Resolved at start-up: a missing, ambiguous or incompatible method fails it. Never called
	 * for a shadow limit, which does not deny.
	 */
	String fallbackMethod() default "";

	/** Container of repeated {@link RateLimited} annotations. */
	@Target({ ElementType.METHOD, ElementType.TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@interface List {

		RateLimited[] value();

	}

}
