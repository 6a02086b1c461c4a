package dev.ratelimit.aop;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import org.aspectj.lang.ProceedingJoinPoint;
import org.jspecify.annotations.Nullable;

/**
 * Ends a {@link Completion} when a {@code @RateLimited} call ends: when the method returns or throws, or, for a
 * method that returns a {@link CompletionStage} (a {@code CompletableFuture}, e.g. of an {@code @Async} method), when
 * that stage completes.
 */
final class CallCompletion {

	private CallCompletion() {
	}

	/**
	 * Proceeds with a call and ends its completion when the call ends.
	 * @param call the call
	 * @param completion ends with it
	 * @return what the method returned
	 * @throws Throwable what the method threw
	 */
	static @Nullable Object proceed(ProceedingJoinPoint call, Completion completion) throws Throwable {
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			completion.end(Outcome.FAILED, null, ex);
			throw ex;
		}
		if (result instanceof CompletionStage<?> stage) {
			stage.whenComplete((value, failure) -> completion.end(outcomeOf(failure), null, unwrap(failure)));
		}
		else {
			completion.end(Outcome.COMPLETED);
		}
		return result;
	}

	static Outcome outcomeOf(@Nullable Throwable failure) {
		Throwable cause = unwrap(failure);
		if (cause == null) {
			return Outcome.COMPLETED;
		}
		if (cause instanceof CancellationException) {
			return Outcome.ABORTED;
		}
		return (cause instanceof TimeoutException) ? Outcome.TIMED_OUT : Outcome.FAILED;
	}

	/** Returns what a stage failed with, without the {@link CompletionException} that wraps it. */
	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
