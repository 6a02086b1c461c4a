package dev.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * The Redis commands that one call of the store issues (a script call, its {@code EVAL} fallback, a Cluster slot
 * group's refund), so that a call the limiter gave up on can be {@link #abandon() abandoned}: it issues no more
 * commands, and what its commands consumed is given back when their replies still arrive (see {@link #compensable}).
 * On a connection that queues commands while disconnected, abandoning also cancels the commands themselves, so that
 * Lettuce does not write them after a reconnect; on one that rejects them (the store's own connection, see
 * {@link LimiterConnectionFactory}) they are left to reply, since a cancelled command's reply is discarded and what it
 * consumed could not be given back. A command written to a connection that then breaks may or may not have run; that
 * is the one charge that cannot be undone.
 */
final class IssuedCommands {

	private final RedisClusterAsyncCommands<byte[], byte[]> commands;

	private final boolean cancelOnAbandon;

	private final List<RedisFuture<?>> issued = new ArrayList<>(2);

	private final List<Compensation<?, ?>> compensations = new ArrayList<>(1);

	private @Nullable List<Runnable> onAbandon;

	private boolean abandoned;

	/**
	 * @param commands the connection's commands
	 * @param cancelOnAbandon whether to cancel the commands not completed when the call is abandoned: for a
	 * connection that queues commands while disconnected
	 */
	IssuedCommands(RedisClusterAsyncCommands<byte[], byte[]> commands, boolean cancelOnAbandon) {
		this.commands = commands;
		this.cancelOnAbandon = cancelOnAbandon;
	}

	/**
	 * Issues a command, unless the call was abandoned.
	 * @param command issues the command on the connection
	 * @param <T> the type of its reply
	 * @return its reply, failed with a {@link CancellationException} when the call was abandoned
	 */
	<T> CompletableFuture<T> issue(Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
		RedisFuture<T> future;
		synchronized (this) {
			if (this.abandoned) {
				return CompletableFuture.failedFuture(new CancellationException("The rate limit call was given up"));
			}
			future = command.apply(this.commands);
			this.issued.add(future);
		}
		return future.toCompletableFuture();
	}

	/**
	 * Returns commands on the same connection for compensating calls (a refund that only gives back what this call
	 * consumed): they run even when this call is abandoned, and abandoning it does not cancel them.
	 */
	IssuedCommands compensations() {
		return new IssuedCommands(this.commands, this.cancelOnAbandon);
	}

	/**
	 * Registers what gives back a reply's consumption, to run once that reply has arrived if the call is abandoned
	 * (its command was on the wire already, Redis ran it, but nobody uses its decision).
	 * @param reply the reply of a command that consumes
	 * @param compensation gives back what the reply says was consumed
	 * @param <R> the type of the reply
	 * @param <C> the type of the compensation's reply
	 * @return the compensation, which the call itself may also run (it runs at most once)
	 */
	<R, C> Compensation<R, C> compensable(CompletableFuture<R> reply, Function<R, CompletableFuture<C>> compensation) {
		Compensation<R, C> registered = new Compensation<>(reply, compensation);
		synchronized (this) {
			this.compensations.add(registered);
		}
		reply.thenRun(() -> {
			if (isAbandoned()) {
				registered.run();
			}
		});
		return registered;
	}

	/** Returns whether the call was given up. */
	synchronized boolean isAbandoned() {
		return this.abandoned;
	}

	/**
	 * Runs an action when the call is abandoned (at once if it is already): for a batch that carries this call's
	 * request beside others, whose command only the batch may cancel.
	 * @param action what to run
	 */
	void onAbandon(Runnable action) {
		synchronized (this) {
			if (!this.abandoned) {
				if (this.onAbandon == null) {
					this.onAbandon = new ArrayList<>(1);
				}
				this.onAbandon.add(action);
				return;
			}
		}
		action.run();
	}

	/**
	 * Abandons the call: refuses further commands, compensates the replies that have arrived (and those that arrive
	 * later) and, on a connection that queues, cancels its commands that have not completed (Lettuce skips a cancelled
	 * command that it has not written yet).
	 */
	void abandon() {
		List<Compensation<?, ?>> toCompensate;
		List<Runnable> actions;
		synchronized (this) {
			if (this.abandoned) {
				return;
			}
			this.abandoned = true;
			for (RedisFuture<?> future : this.issued) {
				if (this.cancelOnAbandon && !future.isDone()) {
					// on a Lettuce AsyncCommand, this cancels the command itself, not just a future derived from it
					future.cancel(true);
				}
			}
			this.issued.clear();
			toCompensate = List.copyOf(this.compensations);
			actions = (this.onAbandon != null) ? this.onAbandon : List.of();
			this.onAbandon = null;
		}
		for (Runnable action : actions) {
			action.run();
		}
		for (Compensation<?, ?> compensation : toCompensate) {
			if (compensation.reply.isDone() && !compensation.reply.isCompletedExceptionally()) {
				compensation.run();
			}
		}
	}

	/**
	 * Abandons the call when {@code result} is cancelled, e.g. by a caller that stops waiting for it.
	 * @param result the call's result
	 * @param <T> its type
	 * @return {@code result}
	 */
	<T> CompletableFuture<T> abandonWhenCancelled(CompletableFuture<T> result) {
		result.whenComplete((value, ex) -> {
			if (ex instanceof CancellationException) {
				abandon();
			}
		});
		return result;
	}

	/**
	 * What gives back one reply's consumption; runs at most once, whether the call runs it (a Cluster refund) or its
	 * abandonment does.
	 *
	 * @param <R> the type of the reply
	 * @param <C> the type of the compensation's reply
	 */
	static final class Compensation<R, C> {

		private final CompletableFuture<R> reply;

		private final Function<R, CompletableFuture<C>> compensation;

		private @Nullable CompletableFuture<C> result;

		private Compensation(CompletableFuture<R> reply, Function<R, CompletableFuture<C>> compensation) {
			this.reply = reply;
			this.compensation = compensation;
		}

		/** Runs the compensation after the reply arrived, or returns what the first run gave. */
		synchronized CompletableFuture<C> run() {
			if (this.result == null) {
				this.result = this.compensation.apply(this.reply.join());
			}
			return this.result;
		}

	}

}
