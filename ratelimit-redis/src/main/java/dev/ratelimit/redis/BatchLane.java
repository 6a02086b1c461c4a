package dev.ratelimit.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import dev.ratelimit.RateLimitCheck;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.SlotHash;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Natural batching of the store's decisions on one connection (in a Redis Cluster: of one master, or of one hash
 * slot, see {@link Master}). Up to
 * {@link RedisBatching#lanes()} script calls are in flight at once; a request that finds one free and nobody waiting
 * goes out at once, alone, as it would without batching (no timer ever holds a request back). Requests that arrive
 * while every lane is busy wait in arrival order; when a call returns, the next call carries as many of them as the
 * limits allow ({@link RedisBatching#maxRequests()}, {@link RedisBatching#maxChecks()}), decided one after the other by
 * the script at one time. Requests with different explicit times (tests) never share a call.
 * <p>
 * Other commands of the store ({@link #submit(Runnable) in order}: refunds, releases, renewals, cancellations, resets)
 * wait behind the requests that arrived before them, so that calls made one after another from one thread still reach
 * Redis in order; they do not take a lane.
 * A Cluster request whose keys lie in several slots waits in the lanes of all of them as a {@link Barrier}.
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

	/** For a Redis Cluster master's lane, how its batches reach the master; {@code null} for any other lane. */
	private final @Nullable Master master;

	/** {@link Request}s and in-order commands ({@link Runnable}s) not yet sent, in arrival order. */
	private final ArrayDeque<Object> queue = new ArrayDeque<>();

	private int inFlight;

	/** The Netty event loop where replies arrive: the connection's, from which a write cannot wait its turn. */
	private volatile @Nullable EventExecutor replyLoop;

	private boolean pumping;

	/** Sends handed to the reply loop as tasks that have not run yet. */
	private int deferred;

	/** The barrier at the head of the queue that this lane has reached, while it waits for the other lanes. */
	private @Nullable Barrier arrivedAt;

	private final LongAdder calls = new LongAdder();

	private final LongAdder requests = new LongAdder();

	private final LongAdder callsAcrossSlots = new LongAdder();

	private final LongAdder refusedAcrossSlots = new LongAdder();

	/**
	 * @param scripts the store's scripts
	 * @param batchCommands the commands for a call that carries several requests
	 * @param settings the lanes and limits
	 */
	BatchLane(ScriptsInUse scripts, Supplier<IssuedCommands> batchCommands, RedisBatching settings) {
		this(scripts, batchCommands, settings, null);
	}

	/**
	 * @param scripts the store's scripts
	 * @param batchCommands the commands for a call that carries several requests (in a Cluster: routed by slot)
	 * @param settings the lanes and limits
	 * @param master for the lane of a Redis Cluster master (its requests' keys in any of its slots), how its batches
	 * reach it; {@code null} for the lane of a standalone Redis or of one hash slot
	 */
	BatchLane(ScriptsInUse scripts, Supplier<IssuedCommands> batchCommands, RedisBatching settings,
			@Nullable Master master) {
		this.scripts = scripts;
		this.batchCommands = batchCommands;
		this.settings = settings;
		this.master = master;
	}

	/**
	 * How the lane of a Redis Cluster master sends a batch (decision 140): as one call of {@code gcra.lua} across hash
	 * slots on the master's own connection while its requests are all GCRA evaluations and the Cluster runs such
	 * scripts, else as one call per slot.
	 *
	 * @param acrossSlots whether the Cluster's masters run scripts across slots, shared by a store's master lanes and
	 * cleared for good when a master cannot parse the script's shebang (Redis before 7)
	 * @param commands the commands of a call on the master's own connection (the one that Lettuce routes the master's
	 * slots through), or {@code null} while that connection is not open yet, for which nothing waits
	 */
	record Master(AtomicBoolean acrossSlots, Supplier<@Nullable IssuedCommands> commands) {
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
	 * A command of several lanes (a Redis Cluster request whose keys lie in several slots, which no lane's call can
	 * carry): issued once every lane has sent what waited in it before, while each holds back what came after, so that
	 * calls made one after another from one thread reach Redis in order. Every barrier must be {@link #enqueue() queued}
	 * under one lock shared by all lanes that barriers may span, so that every lane sees them in one order.
	 */
	static final class Barrier {

		private final List<BatchLane> lanes;

		private final Runnable command;

		private int arrivals;

		private volatile boolean open;

		/**
		 * @param lanes the lanes, distinct
		 * @param command issues the command (at most once)
		 */
		Barrier(List<BatchLane> lanes, Runnable command) {
			this.lanes = List.copyOf(lanes);
			this.command = command;
		}

		/** Queues the barrier in each of its lanes. */
		void enqueue() {
			for (BatchLane lane : this.lanes) {
				lane.enqueue(this);
			}
		}

		boolean isOpen() {
			return this.open;
		}

		/**
		 * A lane reached the barrier and sent what came before it; the last one issues the command, then every lane
		 * goes on (a lane that waits here holds no lock while it waits, so the lanes' locks taken here cannot cycle).
		 */
		private void arrive() {
			synchronized (this) {
				if (++this.arrivals < this.lanes.size()) {
					return;
				}
			}
			runQuietly(this.command);
			// open only once the command is on its way: a lane that pumps meanwhile still holds back what follows
			this.open = true;
			for (BatchLane lane : this.lanes) {
				lane.resume();
			}
		}

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

	/** Returns the number of script calls sent across hash slots to a Cluster master (refused ones included). */
	long callsAcrossSlots() {
		return this.callsAcrossSlots.sum();
	}

	/** Returns the number of script calls across hash slots that a master refused before writing. */
	long refusedAcrossSlots() {
		return this.refusedAcrossSlots.sum();
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

	/** Goes on past a barrier that opened. */
	private synchronized void resume() {
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
			// there every send waits its turn as a task of the loop too; and while such tasks wait, a send from another
			// thread (or a barrier's arrival) waits behind them as well
			EventExecutor current = ThreadExecutorMap.currentExecutor();
			EventExecutor reply = this.replyLoop;
			EventExecutor loop = (reply != null && (current == reply || this.deferred > 0)) ? reply : null;
			while (!this.queue.isEmpty()) {
				if (this.queue.peek() instanceof Runnable command) {
					this.queue.poll();
					dispatch(loop, command);
					continue;
				}
				if (this.queue.peek() instanceof Barrier barrier) {
					if (!barrier.isOpen() && this.arrivedAt != barrier) {
						// after what this lane sent before it, as a send of its own
						this.arrivedAt = barrier;
						dispatch(loop, barrier::arrive);
					}
					if (!barrier.isOpen()) {
						return;
					}
					this.queue.poll();
					this.arrivedAt = null;
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

	/** Sends now, or as a task of the loop (counted in {@link #deferred} until it ran). Called with the lock held. */
	private void dispatch(@Nullable EventExecutor loop, Runnable send) {
		if (loop != null) {
			this.deferred++;
			try {
				loop.execute(() -> {
					try {
						runQuietly(send);
					}
					finally {
						synchronized (this) {
							this.deferred--;
						}
					}
				});
				return;
			}
			catch (RejectedExecutionException ex) {
				// shutting down: send from here, where the commands fail anyway
				this.deferred--;
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
		CompletableFuture<List<RateLimitScript.Reply>> replies = sendGuarded(
				() -> (batch.size() == 1) ? sendAlone(batch.get(0)) : sendTogether(batch));
		Thread sender = Thread.currentThread();
		// only a call that failed at once is done here, on the pump's thread, under the lane's lock
		boolean failedAtOnce = replies.isDone();
		replies.whenComplete((values, ex) -> {
			// a reply that came before this callback was added completes it on the sender's thread, which may be
			// another event loop (a WebFlux server's): only a reply's own thread is the connection's loop
			EventExecutor loop = ThreadExecutorMap.currentExecutor();
			if (loop != null && Thread.currentThread() != sender) {
				this.replyLoop = loop;
			}
			// the next call goes out before the callers of this one are woken
			done();
			if (ex == null && values == null) {
				// sent again one by one, or by slot: each call completed its own requests' replies
				return;
			}
			wake(batch, values, ex, failedAtOnce);
		});
	}

	/**
	 * Completes the requests' replies with their call's outcome. A call that completed before its outcome was relayed
	 * failed at once, on a thread that holds a lane's lock: its callers are woken from another thread then, so that
	 * no caller's code (which may decide again) runs under a lane's lock.
	 */
	private static void wake(List<Request> requests, @Nullable List<RateLimitScript.Reply> values,
			@Nullable Throwable failure, boolean atOnce) {
		Runnable wake = () -> {
			for (int q = 0; q < requests.size(); q++) {
				CompletableFuture<RateLimitScript.Reply> reply = requests.get(q).reply();
				if (failure != null) {
					reply.completeExceptionally(failure);
				}
				else {
					reply.complete(values.get(q));
				}
			}
		};
		if (atOnce) {
			ForkJoinPool.commonPool().execute(wake);
		}
		else {
			wake.run();
		}
	}

	/**
	 * Relays the calls of groups of requests (one per slot, or one per request), each call's outcome to its own
	 * group's replies only.
	 * @return completed with {@code null} once every call has: the replies are not the caller's to complete
	 */
	private static CompletableFuture<List<RateLimitScript.Reply>> relay(List<List<Request>> groups,
			List<CompletableFuture<List<RateLimitScript.Reply>>> calls) {
		CompletableFuture<?>[] relayed = new CompletableFuture<?>[calls.size()];
		for (int g = 0; g < calls.size(); g++) {
			List<Request> group = groups.get(g);
			CompletableFuture<List<RateLimitScript.Reply>> call = calls.get(g);
			boolean atOnce = call.isDone();
			relayed[g] = call.handle((values, ex) -> {
				wake(group, values, ex, atOnce);
				return null;
			});
		}
		return CompletableFuture.allOf(relayed).thenApply((ignored) -> null);
	}

	/** Sends a lone request exactly as without batching: on its own commands, in the format of one request. */
	private CompletableFuture<List<RateLimitScript.Reply>> sendAlone(Request request) {
		RateLimitScript script = request.gcra() ? this.scripts.gcra() : this.scripts.general();
		return script.run(request.call(), request.keys(), request.checkArguments(), request.checks(), request.now(),
				request.mode(), request.leaseId()).thenApply(List::of);
	}

	private CompletableFuture<List<RateLimitScript.Reply>> sendTogether(List<Request> batch) {
		boolean gcra = batch.stream().allMatch(Request::gcra);
		if (this.master == null) {
			return together(this.batchCommands.get(), batch, gcra, false);
		}
		IssuedCommands commands = (gcra && this.master.acrossSlots().get()) ? this.master.commands().get() : null;
		if (commands == null) {
			return bySlot(batch);
		}
		this.callsAcrossSlots.increment();
		return together(commands, batch, true, true).exceptionallyCompose((ex) -> {
			if (!refusedBeforeWriting(ex)) {
				return CompletableFuture.failedFuture(ex);
			}
			this.refusedAcrossSlots.increment();
			return eachAlone(batch, ex);
		});
	}

	/** Sends a batch in one call of the script that decides it, cancelled once every request in it was given up. */
	private CompletableFuture<List<RateLimitScript.Reply>> together(IssuedCommands commands, List<Request> batch,
			boolean gcra, boolean acrossSlots) {
		AtomicInteger live = new AtomicInteger(batch.size());
		for (Request request : batch) {
			request.call().onAbandon(() -> {
				if (live.decrementAndGet() == 0) {
					commands.abandon();
				}
			});
		}
		return (gcra ? this.scripts.gcra() : this.scripts.general()).runBatch(commands, batch, batch.get(0).now(),
				acrossSlots);
	}

	/**
	 * Sends a master lane's batch as one call per hash slot (routed by slot), concurrently, each completing its own
	 * requests' replies (a slot's failure is its requests' only); the requests of one slot keep their order.
	 */
	private CompletableFuture<List<RateLimitScript.Reply>> bySlot(List<Request> batch) {
		Map<Integer, List<Request>> slots = new LinkedHashMap<>();
		for (Request request : batch) {
			slots.computeIfAbsent(SlotHash.getSlot(request.keys()[0]), (slot) -> new ArrayList<>()).add(request);
		}
		List<List<Request>> groups = new ArrayList<>(slots.values());
		List<CompletableFuture<List<RateLimitScript.Reply>>> calls = new ArrayList<>(groups.size());
		for (List<Request> requests : groups) {
			calls.add(sendGuarded(() -> (requests.size() == 1) ? sendAlone(requests.get(0))
					: together(this.batchCommands.get(), requests, requests.stream().allMatch(Request::gcra), false)));
		}
		return relay(groups, calls);
	}

	private static CompletableFuture<List<RateLimitScript.Reply>> sendGuarded(
			Supplier<CompletableFuture<List<RateLimitScript.Reply>>> send) {
		try {
			return send.get();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Whether a master refused a batch across hash slots before it wrote anything, so that its requests can be sent
	 * again each on its own (routed by slot, following redirections): a full Redis refuses a script with a shebang
	 * whole (where one without lets a denial through, decision 60), a master that no longer serves a key refuses at
	 * the read (the script reads every key before it writes), a replica refuses it whole, and Redis before 7 cannot
	 * parse the shebang at all (which turns the store's batches back to one slot for good).
	 */
	private boolean refusedBeforeWriting(Throwable failure) {
		for (Throwable each = failure; each != null; each = (each.getCause() != each) ? each.getCause() : null) {
			if (each instanceof RedisCommandExecutionException && each.getMessage() != null) {
				String message = each.getMessage();
				if (message.startsWith("ERR Error compiling script")) {
					if (this.master != null && this.master.acrossSlots().getAndSet(false)) {
						logger.info("This Redis Cluster does not run scripts with flags (Redis 7 and later do): its "
								+ "batches of decisions keep to one hash slot (" + message + ")");
					}
					return true;
				}
				// WRONGTYPE: a GET of a key of another type (where MGET reads nil), raised by the reads too
				return message.startsWith("OOM") || message.startsWith("READONLY")
						|| message.contains("non local key") || message.startsWith("WRONGTYPE");
			}
		}
		return false;
	}

	/**
	 * Sends each request of a batch on its own, as a lone request goes, each completing its own reply (so that one
	 * request's failure is its own: on a full Redis, denials are still answered).
	 * @return completed with {@code null} once every call has: the replies are not the caller's to complete
	 */
	private CompletableFuture<List<RateLimitScript.Reply>> eachAlone(List<Request> batch, Throwable cause) {
		if (logger.isDebugEnabled()) {
			logger.debug("A batch across hash slots was refused; its " + batch.size() + " requests go one by one",
					cause);
		}
		List<List<Request>> groups = new ArrayList<>(batch.size());
		List<CompletableFuture<List<RateLimitScript.Reply>>> calls = new ArrayList<>(batch.size());
		for (Request request : batch) {
			groups.add(List.of(request));
			calls.add(sendGuarded(() -> sendAlone(request)));
		}
		return relay(groups, calls);
	}

}
