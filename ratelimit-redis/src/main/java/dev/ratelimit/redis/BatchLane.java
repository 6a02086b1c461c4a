package dev.ratelimit.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import dev.ratelimit.RateLimitCheck;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Natural batching of the store's decisions on one connection (in a Redis Cluster: of one hash slot). Up to
 * {@link RedisBatching#lanes()} script calls are in flight at once; a request that finds one free and nobody waiting
 * goes out at once, alone, as it would without batching (no timer ever holds a request back). Requests that arrive
 * while every lane is busy wait in arrival order; when a call returns, the next call carries as many of them as the
 * limits allow ({@link RedisBatching#maxRequests()}, {@link RedisBatching#maxChecks()}), decided one after the other by
 * the script at one time. Requests with different explicit times (tests) never share a call.
 * <p>
 * Other commands of the store ({@link #submit(Runnable) in order}: refunds, releases, renewals, cancellations, resets)
 * wait behind the requests that arrived before them, so that calls made one after another from one thread still reach
 * Redis in order; they do not take a lane.
 * <p>
 * A request whose caller gave up while it waited is not sent. A request sent in a batch cannot cancel the batch's
 * command alone (the others need it): its caller's giving up is compensated when the reply arrives, as for a lone
 * request on a connection that rejects commands while disconnected; on a connection that queues them, the batch's
 * command is cancelled once every request in it was given up.
 */
final class BatchLane {

	private static final Log logger = LogFactory.getLog(BatchLane.class);

	private final ScriptsInUse scripts;

	private final Supplier<IssuedCommands> batchCommands;

	private final RedisBatching settings;

	/** {@link Request}s and in-order commands ({@link Runnable}s) not yet sent, in arrival order. */
	private final ArrayDeque<Object> queue = new ArrayDeque<>();

	private int inFlight;

	/** The Netty event loop where replies arrive: the connection's, from which a write cannot wait its turn. */
	private volatile @Nullable EventExecutor replyLoop;

	private boolean pumping;

	private final LongAdder calls = new LongAdder();

	private final LongAdder requests = new LongAdder();

	/**
	 * @param scripts the store's scripts
	 * @param batchCommands the commands for a call that carries several requests
	 * @param settings the lanes and limits
	 */
	BatchLane(ScriptsInUse scripts, Supplier<IssuedCommands> batchCommands, RedisBatching settings) {
		this.scripts = scripts;
		this.batchCommands = batchCommands;
		this.settings = settings;
	}

	/**
	 * One request to decide.
	 *
	 * @param call the request's own commands (given up when its caller gives up)
	 * @param keys one key per check
	 * @param checkArguments the checks' script arguments
	 * @param checks the checks
	 * @param mode evaluate or peek
	 * @param leaseId the id of the leases that its concurrency checks acquire, or {@code ""}
	 * @param now the explicit time (tests), or {@code null} for Redis {@code TIME}
	 * @param gcra whether {@code gcra.lua} can decide it
	 * @param reply completed with the request's reply
	 */
	record Request(IssuedCommands call, byte[][] keys, byte[][] checkArguments, List<RateLimitCheck> checks,
			RateLimitScript.Mode mode, String leaseId, @Nullable Long now, boolean gcra,
			CompletableFuture<RateLimitScript.Reply> reply) {
	}

	/**
	 * Sends the request now if a lane is free and nobody waits, else queues it.
	 * @param request the request
	 */
	void submit(Request request) {
		enqueue(request);
	}

	/**
	 * Runs a command of the store now if nothing waits, else after what waits has been sent.
	 * @param command issues the command
	 */
	void submit(Runnable command) {
		enqueue(command);
	}

	/** Returns the number of script calls that carried requests. */
	long calls() {
		return this.calls.sum();
	}

	/** Returns the number of requests sent. */
	long requests() {
		return this.requests.sum();
	}

	/** Returns the number of requests and commands waiting. */
	synchronized int waiting() {
		return this.queue.size();
	}

	private synchronized void enqueue(Object item) {
		this.queue.add(item);
		pump();
	}

	private synchronized void done() {
		this.inFlight--;
		pump();
	}

	/**
	 * Sends what may go now, in order. Called with the lock held; a call that completes at once re-enters through
	 * {@link #done()} and leaves the sending to the loop already running.
	 */
	private void pump() {
		if (this.pumping) {
			return;
		}
		this.pumping = true;
		try {
			// on the connection's event loop a write goes out at once, ahead of the writes that other threads handed
			// to the loop before (tasks in its queue): calls from one thread would reach Redis out of order, so
			// there every send waits its turn as a task of the loop too
			EventExecutor current = ThreadExecutorMap.currentExecutor();
			EventExecutor loop = (current != null && current == this.replyLoop) ? current : null;
			while (!this.queue.isEmpty()) {
				if (this.queue.peek() instanceof Runnable command) {
					this.queue.poll();
					dispatch(loop, command);
					continue;
				}
				if (this.inFlight >= this.settings.lanes()) {
					return;
				}
				List<Request> batch = takeBatch();
				if (!batch.isEmpty()) {
					this.inFlight++;
					dispatch(loop, () -> send(batch));
				}
			}
		}
		finally {
			this.pumping = false;
		}
	}

	private static void dispatch(@Nullable EventExecutor loop, Runnable send) {
		if (loop != null) {
			try {
				loop.execute(() -> runQuietly(send));
				return;
			}
			catch (RejectedExecutionException ex) {
				// shutting down: send from here, where the commands fail anyway
			}
		}
		runQuietly(send);
	}

	private static void runQuietly(Runnable command) {
		try {
			command.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A rate limit command could not be issued", ex);
		}
	}

	/** Takes the waiting requests of the next call, dropping those whose caller gave up. */
	private List<Request> takeBatch() {
		List<Request> batch = new ArrayList<>();
		int checks = 0;
		while (this.queue.peek() instanceof Request request) {
			if (request.call().isAbandoned()) {
				this.queue.poll();
				request.reply().completeExceptionally(new CancellationException("The rate limit call was given up"));
				continue;
			}
			if (!batch.isEmpty() && (batch.size() >= this.settings.maxRequests()
					|| checks + request.keys().length > this.settings.maxChecks()
					|| !Objects.equals(request.now(), batch.get(0).now()))) {
				break;
			}
			this.queue.poll();
			batch.add(request);
			checks += request.keys().length;
		}
		return batch;
	}

	private void send(List<Request> batch) {
		this.calls.increment();
		this.requests.add(batch.size());
		CompletableFuture<List<RateLimitScript.Reply>> replies;
		try {
			replies = (batch.size() == 1) ? sendAlone(batch.get(0)) : sendTogether(batch);
		}
		catch (RuntimeException ex) {
			replies = CompletableFuture.failedFuture(ex);
		}
		Thread sender = Thread.currentThread();
		replies.whenComplete((values, ex) -> {
			// a reply that came before this callback was added completes it on the sender's thread, which may be
			// another event loop (a WebFlux server's): only a reply's own thread is the connection's loop
			EventExecutor loop = ThreadExecutorMap.currentExecutor();
			if (loop != null && Thread.currentThread() != sender) {
				this.replyLoop = loop;
			}
			// the next call goes out before the callers of this one are woken
			done();
			for (int q = 0; q < batch.size(); q++) {
				CompletableFuture<RateLimitScript.Reply> reply = batch.get(q).reply();
				if (ex != null) {
					reply.completeExceptionally(ex);
				}
				else {
					reply.complete(values.get(q));
				}
			}
		});
	}

	/** Sends a lone request exactly as without batching: on its own commands, in the format of one request. */
	private CompletableFuture<List<RateLimitScript.Reply>> sendAlone(Request request) {
		RateLimitScript script = request.gcra() ? this.scripts.gcra() : this.scripts.general();
		return script.run(request.call(), request.keys(), request.checkArguments(), request.checks(), request.now(),
				request.mode(), request.leaseId()).thenApply(List::of);
	}

	private CompletableFuture<List<RateLimitScript.Reply>> sendTogether(List<Request> batch) {
		boolean gcra = batch.stream().allMatch(Request::gcra);
		IssuedCommands commands = this.batchCommands.get();
		AtomicInteger live = new AtomicInteger(batch.size());
		for (Request request : batch) {
			request.call().onAbandon(() -> {
				if (live.decrementAndGet() == 0) {
					commands.abandon();
				}
			});
		}
		return (gcra ? this.scripts.gcra() : this.scripts.general()).runBatch(commands, batch, batch.get(0).now());
	}

}
