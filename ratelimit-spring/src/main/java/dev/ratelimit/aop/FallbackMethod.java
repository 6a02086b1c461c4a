package dev.ratelimit.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;
import dev.ratelimit.Verdict;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The method named by {@link RateLimited#fallbackMethod()}, resolved once at start-up: a method of the same bean
 * class with the annotated method's parameters, optionally followed by one that takes the denial (a
 * {@link RateLimitExceededException} or a supertype of it) or its {@link Verdict}, and a return type the annotated
 * method may return. It is called on the target object (not through the bean's proxy).
 */
final class FallbackMethod {

	/** What the fallback takes after the call's arguments. */
	private enum Trailing {

		NONE, DENIAL, VERDICT

	}

	private final Method method;

	private final Trailing trailing;

	private FallbackMethod(Method method, Trailing trailing) {
		this.method = method;
		this.trailing = trailing;
	}

	/**
	 * Resolves the fallback of a method.
	 * @param name the fallback method's name
	 * @param annotated the annotated method (the most specific one of the target class)
	 * @param targetClass the bean class
	 * @param where names the bean and the method in an error
	 * @return the fallback
	 * @throws InvalidRateLimitRuleException when no method, more than one, or an incompatible one fits
	 */
	static FallbackMethod resolve(String name, Method annotated, Class<?> targetClass, String where) {
		String property = where + " (fallbackMethod)";
		String params = Arrays.stream(annotated.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", "));
		String expected = "a method " + name + "(" + params + ") returning "
				+ annotated.getGenericReturnType().getTypeName() + ", optionally with a last parameter "
				+ "RateLimitExceededException (or Verdict)";
		List<Method> named = new ArrayList<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (method.getName().equals(name)) {
				named.add(method);
			}
		}
		if (named.isEmpty()) {
			throw new InvalidRateLimitRuleException(property,
					targetClass.getName() + " has no method named '" + name + "'", "Declare " + expected);
		}
		List<FallbackMethod> fitting = new ArrayList<>();
		for (Method method : named) {
			Trailing trailing = trailing(method, annotated);
			if (trailing != null) {
				fitting.add(new FallbackMethod(method, trailing));
			}
		}
		if (fitting.isEmpty()) {
			throw new InvalidRateLimitRuleException(property,
					"no method '" + name + "' of " + targetClass.getName() + " takes the parameters of "
							+ annotated.getName() + " (found " + signatures(named) + ")",
					"Declare " + expected);
		}
		if (fitting.size() > 1) {
			throw new InvalidRateLimitRuleException(property,
					"'" + name + "' is ambiguous: "
							+ signatures(fitting.stream().map((fallback) -> fallback.method).toList())
							+ " all fit",
					"Keep one of them, or name another method");
		}
		FallbackMethod fallback = fitting.get(0);
		ResolvableType declared = ResolvableType.forMethodReturnType(annotated, targetClass);
		ResolvableType returned = ResolvableType.forMethodReturnType(fallback.method, targetClass);
		if (!returns(declared, returned)) {
			throw new InvalidRateLimitRuleException(property,
					"'" + signatures(List.of(fallback.method)) + "' returns " + returned + " where "
							+ annotated.getName() + " returns " + declared,
					"Declare " + expected);
		}
		ReflectionUtils.makeAccessible(fallback.method);
		return fallback;
	}

	/** Returns what a candidate takes after the call's arguments, or {@code null} when its parameters do not fit. */
	private static @Nullable Trailing trailing(Method candidate, Method annotated) {
		Class<?>[] expected = annotated.getParameterTypes();
		Class<?>[] actual = candidate.getParameterTypes();
		if (actual.length != expected.length && actual.length != expected.length + 1) {
			return null;
		}
		for (int i = 0; i < expected.length; i++) {
			if (!ClassUtils.isAssignable(actual[i], expected[i])) {
				return null;
			}
		}
		if (actual.length == expected.length) {
			return Trailing.NONE;
		}
		Class<?> last = actual[expected.length];
		if (last == Verdict.class) {
			return Trailing.VERDICT;
		}
		return last.isAssignableFrom(RateLimitExceededException.class) ? Trailing.DENIAL : null;
	}

	private static boolean returns(ResolvableType declared, ResolvableType returned) {
		Class<?> declaredClass = declared.toClass();
		Class<?> returnedClass = returned.toClass();
		if (declaredClass == void.class || returnedClass == void.class) {
			return declaredClass == returnedClass;
		}
		if (!ClassUtils.isAssignable(declaredClass, returnedClass)) {
			return false;
		}
		// Mono<String> is not Mono<Integer>; raw or unresolvable generics are not held against the fallback
		return !declared.hasGenerics() || !returned.hasGenerics() || declared.isAssignableFrom(returned);
	}

	private static String signatures(List<Method> methods) {
		return methods.stream()
			.map((method) -> method.getName() + "(" + Arrays.stream(method.getParameterTypes())
				.map(Class::getSimpleName)
				.collect(Collectors.joining(", ")) + ")")
			.collect(Collectors.joining(", "));
	}

	/**
	 * Calls the fallback for a denied call.
	 * @param target the bean's target object
	 * @param args the call's arguments
	 * @param denial the denial
	 * @return what the fallback returned
	 * @throws Throwable what the fallback threw
	 */
	@Nullable Object invoke(@Nullable Object target, Object[] args, RateLimitExceededException denial)
			throws Throwable {
		Object[] arguments = args;
		if (this.trailing != Trailing.NONE) {
			arguments = Arrays.copyOf(args, args.length + 1);
			arguments[args.length] = (this.trailing == Trailing.VERDICT) ? denial.getVerdict() : denial;
		}
		try {
			return this.method.invoke(target, arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	@Override
	public String toString() {
		return this.method.toGenericString();
	}

}
