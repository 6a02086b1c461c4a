package dev.ratelimit.rule;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs a store call at the end of a request or call, as its {@link dev.ratelimit.Completion} allows: on a thread that
 * must not block, its non-blocking form is sent and not waited for; else the blocking form runs. A failure is handed
 * to the caller's handler, never thrown: the request has ended.
 */
final class AfterEnd {

	private AfterEnd() {
	}

	/**
	 * @param nonBlocking whether the caller must not block
	 * @param async the non-blocking form of the call
	 * @param blocking the blocking form of the call
	 * @param failed told of a failure
	 */
	static void call(boolean nonBlocking, Supplier<? extends CompletableFuture<?>> async, Runnable blocking,
			Consumer<Throwable> failed) {
		if (nonBlocking) {
			CompletableFuture<?> sent;
			try {
				sent = async.get();
			}
			catch (RuntimeException ex) {
				sent = CompletableFuture.failedFuture(ex);
			}
			sent.whenComplete((result, ex) -> {
				if (ex != null) {
					failed.accept(ex);
				}
			});
			return;
		}
		try {
			blocking.run();
		}
		catch (RuntimeException ex) {
			failed.accept(ex);
		}
	}

}
