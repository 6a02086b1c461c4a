package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RateLimitStoreException;
import dev.ratelimit.store.StoreNodes;
import dev.ratelimit.region.RegionBackend;
import dev.ratelimit.region.RegionEntries;
import dev.ratelimit.region.RegionReply;
import dev.ratelimit.region.RegionState;
import dev.ratelimit.sync.SyncBackend;
import dev.ratelimit.sync.SyncFlush;
import dev.ratelimit.sync.SyncReply;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimitStore} in Redis (standalone, Sentinel or Cluster, as its {@link RedisStoreConnection} connects). All checks of a request are decided by one script call on Redis's own clock.
 * <p>
 * Decisions that arrive while the store's calls are in flight share the next call ({@link RedisBatching}); in a
 * Redis Cluster of Redis 7 or later a call carries the GCRA evaluations of one master whatever their hash slots.
 * <p>
 * In a Redis Cluster the checks are grouped by hash slot and the groups run concurrently, one script call each. When
 * one group denies, the groups that admitted are refunded (a second script call that gives back exactly what they
 * consumed) and report their state without the request. Between the two calls other requests may see the
 * consumption; if a refund fails, the quota stays consumed (the conservative direction). A {@link #peek} runs the
 * same script in a mode that writes nothing.
 * <p>
 * Concurrency checks acquire their leases in the same script call; {@link #release} and {@link #renew} run
 * {@code lease.lua}, one call for all leases (in a Cluster, one per lease, concurrently).
 * <p>
 * A call that is not answered within the timeout (or whose future is cancelled) is given up: it issues no further
 * command (no {@code EVAL} fallback), and when a command of it that was already sent still runs and consumes, what it
 * consumed is given back as soon as its reply arrives. Built by {@link RedisRateLimitStoreBuilder}, the store uses
 * a connection that rejects commands while disconnected instead of queueing them for after the reconnect
 * (see {@code docs/resilience.md}); on a connection that queues, a given-up call cancels its commands still queued.
 */
public class RedisRateLimitStore implements RateLimitStore, SyncBackend, RegionBackend, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisRateLimitStore.class);

	private final RedisKeys keys;

	private final Duration commandTimeout;

	private final @Nullable LongSupplier explicitNowMicros;

	private final Supplier<String> leaseIds;

	private final ScriptsInUse scripts = new ScriptsInUse();

	private final SyncScript syncScript = new SyncScript();

	private final RegionScript regionScript = new RegionScript();

	private final SlotGroupedEvaluation slotGrouped = new SlotGroupedEvaluation(this.scripts);

	private final RedisStoreConnection connection;

	/** Whether the connection queues commands while disconnected, so that a given-up call must cancel its own. */
	private final boolean queuesWhileDisconnected;

	private final RedisBatching batching;

	/** The batching lane of a standalone (or Sentinel) Redis, when batching. */
	private final @Nullable BatchLane lane;

	/** The batching lanes of a Cluster, by hash slot, when batching within slots. */
	private final Map<Integer, BatchLane> slotLanes = new ConcurrentHashMap<>();

	/** The batching lanes of a Cluster, by master node id, when batching across slots (decision 140). */
	private final Map<String, BatchLane> masterLanes = new ConcurrentHashMap<>();

	/** Held while a barrier is queued in several lanes, so that every lane sees the barriers in one order. */
	private final Object barriers = new Object();

	/** Whether the Cluster's batches go across slots: until a master shows it cannot (Redis before 7). */
	private final AtomicBoolean acrossSlots;

	/** The masters of a Redis Cluster, or {@code null} for a standalone or Sentinel Redis. */
	private final @Nullable ClusterNodes nodes;

	/**
	 * Creates a store on Redis's clock.
	 * @param connection the connection to Redis, closed with the store
	 * @param keyPrefix the key prefix
	 * @param commandTimeout how long to wait for Redis before failing with a {@link RateLimitStoreException}
	 */
	public RedisRateLimitStore(RedisStoreConnection connection, String keyPrefix, Duration commandTimeout) {
		this(connection, keyPrefix, commandTimeout, null);
	}

	/**
	 * Creates a store. For tests only: a non-null {@code explicitNowMicros} replaces Redis {@code TIME}.
	 * @param connection the connection to Redis, closed with the store
	 * @param keyPrefix the key prefix
	 * @param commandTimeout how long to wait for Redis before failing with a {@link RateLimitStoreException}
	 * @param explicitNowMicros the clock to pass to the script, or {@code null} for Redis {@code TIME}
	 */
	public RedisRateLimitStore(RedisStoreConnection connection, String keyPrefix, Duration commandTimeout,
			@Nullable LongSupplier explicitNowMicros) {
		this(connection, keyPrefix, commandTimeout, explicitNowMicros, LeaseIds.random());
	}

	/**
	 * Creates a store. For tests only: a non-null {@code explicitNowMicros} replaces Redis {@code TIME}, and the
	 * lease ids can be made predictable.
	 * @param connection the connection to Redis, closed with the store
	 * @param keyPrefix the key prefix
	 * @param commandTimeout how long to wait for Redis before failing with a {@link RateLimitStoreException}
	 * @param explicitNowMicros the clock to pass to the script, or {@code null} for Redis {@code TIME}
	 * @param leaseIds the lease id generator: ids unique among all stores sharing the Redis
	 */
	public RedisRateLimitStore(RedisStoreConnection connection, String keyPrefix, Duration commandTimeout,
			@Nullable LongSupplier explicitNowMicros, Supplier<String> leaseIds) {
		this(connection, keyPrefix, commandTimeout, explicitNowMicros, leaseIds, RedisBatching.DEFAULT);
	}

	/**
	 * Creates a store. For tests only: a non-null {@code explicitNowMicros} replaces Redis {@code TIME} (requests
	 * with different times then never share a batch), and the lease ids can be made predictable.
	 * @param connection the connection to Redis, closed with the store
	 * @param keyPrefix the key prefix
	 * @param commandTimeout how long to wait for Redis before failing with a {@link RateLimitStoreException}
	 * @param explicitNowMicros the clock to pass to the script, or {@code null} for Redis {@code TIME}
	 * @param leaseIds the lease id generator: ids unique among all stores sharing the Redis
	 * @param batching how to batch decisions
	 */
	public RedisRateLimitStore(RedisStoreConnection connection, String keyPrefix, Duration commandTimeout,
			@Nullable LongSupplier explicitNowMicros, Supplier<String> leaseIds, RedisBatching batching) {
		this.connection = Objects.requireNonNull(connection, "connection");
		this.queuesWhileDisconnected = !connection.rejectsCommandsWhileDisconnected();
		this.leaseIds = Objects.requireNonNull(leaseIds, "leaseIds");
		this.keys = new RedisKeys(keyPrefix);
		this.commandTimeout = Objects.requireNonNull(commandTimeout, "commandTimeout");
		this.explicitNowMicros = explicitNowMicros;
		this.batching = Objects.requireNonNull(batching, "batching");
		this.lane = (batching.enabled() && !connection.isCluster()) ? newLane() : null;
		this.acrossSlots = new AtomicBoolean(batching.enabled() && batching.acrossSlots() && connection.isCluster());
		this.nodes = connection.isCluster()
				? new ClusterNodes(this.connection::partitions, (check) -> key(check.policy(), check.subject())) : null;
	}

	private BatchLane newLane() {
		return new BatchLane(this.scripts, this::call, this.batching);
	}

	@Override
	public List<Decision> evaluate(List<RateLimitCheck> checks) {
		return await(evaluateAsync(checks));
	}

	@Override
	public List<Decision> peek(List<RateLimitCheck> checks) {
		return await(peekAsync(checks));
	}

	/**
	 * Evaluates the checks without blocking. Calls made one after another from one thread reach Redis in order.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check
	 */
	@Override
	public CompletableFuture<List<Decision>> evaluateAsync(List<RateLimitCheck> checks) {
		return decideAsync(checks, RateLimitScript.Mode.EVALUATE);
	}

	/**
	 * Peeks at the checks without blocking: the decisions {@link #evaluateAsync} would give, writing nothing. Calls
	 * made one after another from one thread reach Redis in order.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check
	 */
	@Override
	public CompletableFuture<List<Decision>> peekAsync(List<RateLimitCheck> checks) {
		return decideAsync(checks, RateLimitScript.Mode.PEEK);
	}

	private CompletableFuture<List<Decision>> decideAsync(List<RateLimitCheck> checks, RateLimitScript.Mode mode) {
		if (checks.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		IssuedCommands call = call();
		Long now = now();
		byte[][] keyBytes = keys(checks, (check) -> key(check.policy(), check.subject()));
		boolean acquires = checks.stream().anyMatch(RateLimitCheck::acquiresLease);
		String leaseId = (mode == RateLimitScript.Mode.EVALUATE && acquires) ? this.leaseIds.get() : "";
		if (checks.size() > 1 && this.connection.isCluster()
				&& (!this.batching.enabled() || !oneSlot(keyBytes))) {
			Supplier<CompletableFuture<List<Decision>>> decide = () -> this.slotGrouped.decide(call, keyBytes, checks,
					now, mode, leaseId);
			return call.abandonWhenCancelled(this.batching.enabled() ? behindLanes(keyBytes, decide) : decide.get());
		}
		RateLimitScript script = this.scripts.forChecks(checks, mode);
		BatchLane lane = laneFor(keyBytes[0]);
		CompletableFuture<RateLimitScript.Reply> reply;
		if (lane != null) {
			BatchLane.Request request = new BatchLane.Request(call, keyBytes, script.checkArguments(checks, leaseId, now),
					checks, mode, leaseId, now, script == this.scripts.gcra(), new CompletableFuture<>());
			lane.submit(request);
			reply = request.reply();
		}
		else {
			reply = script.run(call, keyBytes, checks, now, mode, leaseId);
		}
		if (mode == RateLimitScript.Mode.EVALUATE) {
			// given up but run after all: give back what it consumed, since the request was decided without it
			call.compensable(reply, (admitted) -> admitted.allowed() ? this.scripts.refund(call.compensations(),
					keyBytes, checks, admitted, now, leaseId) : CompletableFuture.completedFuture(admitted));
		}
		return call.abandonWhenCancelled(reply.thenApply(RateLimitScript.Reply::decisions));
	}

	/**
	 * Issues a Cluster request whose keys lie in several slots once the requests that wait in the batching lanes of
	 * those keys have been sent, so that calls made one after another from one thread still reach Redis in order.
	 */
	private <T> CompletableFuture<T> behindLanes(byte[][] keys, Supplier<CompletableFuture<T>> issue) {
		Set<BatchLane> lanes = new LinkedHashSet<>();
		for (byte[] key : keys) {
			lanes.add(laneFor(key));
		}
		CompletableFuture<T> result = new CompletableFuture<>();
		Runnable command = issuing(issue, result);
		if (lanes.size() == 1) {
			lanes.iterator().next().submit(command);
		}
		else {
			synchronized (this.barriers) {
				new BatchLane.Barrier(List.copyOf(lanes), command).enqueue();
			}
		}
		return result;
	}

	/**
	 * Returns the lane of a request whose keys share one slot, or {@code null} when not batching: in a Cluster, its
	 * master's while batches go across slots (every request of the slot, so that calls from one thread stay in order),
	 * else its slot's.
	 */
	private @Nullable BatchLane laneFor(byte[] key) {
		if (!this.batching.enabled()) {
			return null;
		}
		if (this.lane != null) {
			return this.lane;
		}
		int slot = SlotHash.getSlot(key);
		if (this.acrossSlots.get()) {
			RedisClusterNode owner = this.connection.partitions().getMasterBySlot(slot);
			RedisURI uri = (owner != null) ? owner.getUri() : null;
			if (uri != null) {
				// by node id, which the topology holds already (no key to build per request)
				return this.masterLanes.computeIfAbsent(owner.getNodeId(),
						(id) -> masterLane(uri.getHost(), uri.getPort()));
			}
		}
		return this.slotLanes.computeIfAbsent(slot, (ignored) -> newLane());
	}

	/**
	 * The lane of a Cluster master, whose batches across slots go to its connection by address: the one Lettuce
	 * routes the master's slots through, so that they keep their order with the calls sent by slot.
	 */
	private BatchLane masterLane(String host, int port) {
		return new BatchLane(this.scripts, this::call, this.batching, new BatchLane.Master(this.acrossSlots, () -> {
			if (!(this.connection.commands() instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster)) {
				return null;
			}
			// never waits for a connection: until it is open (or when it cannot be, the address having left the
			// topology), the master's batches go by slot
			StatefulRedisConnection<byte[], byte[]> master;
			try {
				master = cluster.getStatefulConnection().getConnectionAsync(host, port).getNow(null);
			}
			catch (RuntimeException ex) {
				return null;
			}
			return (master != null) ? new IssuedCommands(master.async(), this.queuesWhileDisconnected) : null;
		}));
	}

	private static boolean oneSlot(byte[][] keys) {
		int slot = SlotHash.getSlot(keys[0]);
		for (int i = 1; i < keys.length; i++) {
			if (SlotHash.getSlot(keys[i]) != slot) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Issues commands after the requests already waiting in the batching lane (standalone and Sentinel), so that
	 * calls made one after another from one thread reach Redis in order; in a Cluster, or without batching, at once.
	 */
	private <T> CompletableFuture<T> inOrder(Supplier<CompletableFuture<T>> issue) {
		if (this.lane == null) {
			return issue.get();
		}
		CompletableFuture<T> result = new CompletableFuture<>();
		this.lane.submit(issuing(issue, result));
		return result;
	}

	/**
	 * Returns what issues a command and completes {@code result} as the command completes. It runs in a batching
	 * lane, under its lock: a command that fails at once completes {@code result} from another thread, so that no
	 * caller's code runs there.
	 */
	private static <T> Runnable issuing(Supplier<CompletableFuture<T>> issue, CompletableFuture<T> result) {
		return () -> {
			CompletableFuture<T> issued;
			try {
				issued = issue.get();
			}
			catch (RuntimeException ex) {
				issued = CompletableFuture.failedFuture(ex);
			}
			boolean atOnce = issued.isDone();
			issued.whenComplete((value, ex) -> {
				Runnable complete = () -> {
					if (ex != null) {
						result.completeExceptionally(ex);
					}
					else {
						result.complete(value);
					}
				};
				if (atOnce) {
					ForkJoinPool.commonPool().execute(complete);
				}
				else {
					complete.run();
				}
			});
		};
	}

	/**
	 * Returns the number of script calls that carried decisions, and the number of decisions they carried, through
	 * the batching lanes (0 and 0 when not batching): their ratio is the average batch size.
	 */
	long[] batchStatistics() {
		long calls = (this.lane != null) ? this.lane.calls() : 0;
		long requests = (this.lane != null) ? this.lane.requests() : 0;
		for (BatchLane clusterLane : Stream.concat(this.slotLanes.values().stream(), this.masterLanes.values().stream())
			.toList()) {
			calls += clusterLane.calls();
			requests += clusterLane.requests();
		}
		return new long[] { calls, requests };
	}

	/**
	 * Returns the number of script calls that carried a Cluster master's requests across hash slots (decision 140),
	 * refused ones included.
	 */
	long callsAcrossSlots() {
		return this.masterLanes.values().stream().mapToLong(BatchLane::callsAcrossSlots).sum();
	}

	/** Returns the number of script calls across hash slots that a master refused before writing (decision 140). */
	long refusedAcrossSlots() {
		return this.masterLanes.values().stream().mapToLong(BatchLane::refusedAcrossSlots).sum();
	}

	/** Returns whether a Cluster's batches go across hash slots (decision 140): until a master cannot run them. */
	boolean batchesAcrossSlots() {
		return this.acrossSlots.get();
	}

	private static <T> byte[][] keys(List<T> items, Function<T, String> key) {
		byte[][] keys = new byte[items.size()][];
		for (int i = 0; i < items.size(); i++) {
			keys[i] = key.apply(items.get(i)).getBytes(StandardCharsets.UTF_8);
		}
		return keys;
	}

	private @Nullable Long now() {
		return (this.explicitNowMicros != null) ? this.explicitNowMicros.getAsLong() : null;
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		return await(releaseAsync(leases));
	}

	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		return await(refundAsync(consumptions));
	}

	/**
	 * Refunds without blocking; see {@link #refund}. {@code ratelimit.lua} gives back what was consumed at one time,
	 * so consumptions are grouped by when they were counted (one time for all checks of a request decided in one
	 * call) and, in a Cluster, by hash slot: one script call per group, concurrently.
	 * @param consumptions what admitted checks consumed
	 * @return for each consumption, its check's state after the refund
	 */
	@Override
	public CompletableFuture<List<Decision>> refundAsync(List<Consumption> consumptions) {
		if (consumptions.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		IssuedCommands commands = call();
		Long now = now();
		byte[][] keyBytes = keys(consumptions, (consumption) -> key(consumption.policy(), consumption.subject()));
		boolean cluster = this.connection.isCluster();
		Map<String, List<Integer>> groups = new LinkedHashMap<>();
		for (int i = 0; i < consumptions.size(); i++) {
			String group = consumptions.get(i).atMicros() + (cluster ? ":" + SlotHash.getSlot(keyBytes[i]) : "");
			groups.computeIfAbsent(group, (ignored) -> new ArrayList<>()).add(i);
		}
		Decision[] decisions = new Decision[consumptions.size()];
		return commands.abandonWhenCancelled(inOrder(() -> refund(commands, consumptions, keyBytes, groups, now,
				decisions)));
	}

	private CompletableFuture<List<Decision>> refund(IssuedCommands commands, List<Consumption> consumptions,
			byte[][] keyBytes, Map<String, List<Integer>> groups, @Nullable Long now, Decision[] decisions) {
		List<CompletableFuture<?>> calls = new ArrayList<>(groups.size());
		for (List<Integer> indexes : groups.values()) {
			byte[][] groupKeys = new byte[indexes.size()][];
			List<RateLimitCheck> checks = new ArrayList<>(indexes.size());
			for (int j = 0; j < indexes.size(); j++) {
				groupKeys[j] = keyBytes[indexes.get(j)];
				checks.add(consumptions.get(indexes.get(j)).check());
			}
			RateLimitScript.Mode mode = RateLimitScript.Mode.refund(consumptions.get(indexes.get(0)).atMicros());
			calls.add(this.scripts.general().run(commands, groupKeys, checks, now, mode, "").thenAccept((reply) -> {
				for (int j = 0; j < indexes.size(); j++) {
					decisions[indexes.get(j)] = reply.decisions().get(j);
				}
			}));
		}
		return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
			.thenApply((done) -> Arrays.asList(decisions));
	}

	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		return await(settleAsync(settlements));
	}

	/**
	 * Settles without blocking; see {@link #settle}. One {@code ratelimit.lua} call settles every settlement, one
	 * after the other, atomically on Redis's clock (in a Cluster, one call per hash slot, concurrently). A full Redis
	 * refuses the whole call before it writes anything ({@link RedisOutOfMemoryException}): then nothing is charged nor
	 * given back, and each request stays counted at its estimate.
	 * @param settlements the settlements
	 * @return for each settlement, its check's state after it
	 */
	@Override
	public CompletableFuture<List<Decision>> settleAsync(List<Settlement> settlements) {
		if (settlements.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		IssuedCommands commands = call();
		Long now = now();
		byte[][] keyBytes = keys(settlements,
				(settlement) -> key(settlement.consumption().policy(), settlement.consumption().subject()));
		Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
		for (int i = 0; i < settlements.size(); i++) {
			int group = this.connection.isCluster() ? SlotHash.getSlot(keyBytes[i]) : 0;
			groups.computeIfAbsent(group, (ignored) -> new ArrayList<>()).add(i);
		}
		Decision[] decisions = new Decision[settlements.size()];
		return commands.abandonWhenCancelled(inOrder(() -> {
			List<CompletableFuture<?>> calls = new ArrayList<>(groups.size());
			for (List<Integer> indexes : groups.values()) {
				byte[][] groupKeys = new byte[indexes.size()][];
				List<Settlement> group = new ArrayList<>(indexes.size());
				for (int j = 0; j < indexes.size(); j++) {
					groupKeys[j] = keyBytes[indexes.get(j)];
					group.add(settlements.get(indexes.get(j)));
				}
				RateLimitScript script = this.scripts.general();
				calls.add(script.run(commands, groupKeys, script.settlementArguments(group, now),
						group.stream().map(Settlement::inspection).toList(), now, RateLimitScript.Mode.SETTLE, "")
					.thenAccept((reply) -> {
						for (int j = 0; j < indexes.size(); j++) {
							decisions[indexes.get(j)] = reply.decisions().get(j);
						}
					}));
			}
			return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
				.thenApply((done) -> Arrays.asList(decisions));
		}));
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return await(renewAsync(leases));
	}

	/**
	 * Releases leases without blocking; see {@link #release}.
	 * @param leases the leases
	 * @return for each lease, whether it was held until this call
	 */
	@Override
	public CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
		return changeLeases(leases, LeaseScript.Operation.RELEASE);
	}

	/**
	 * Renews leases without blocking; see {@link #renew}.
	 * @param leases the leases
	 * @return for each lease, whether it is held and renewed
	 */
	@Override
	public CompletableFuture<List<Boolean>> renewAsync(List<Lease> leases) {
		return changeLeases(leases, LeaseScript.Operation.RENEW);
	}

	private CompletableFuture<List<Boolean>> changeLeases(List<Lease> leases, LeaseScript.Operation operation) {
		if (leases.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		IssuedCommands commands = call();
		Long now = now();
		byte[][] keyBytes = keys(leases, (lease) -> key(lease.policy(), lease.subject()));
		if (leases.size() == 1 || !this.connection.isCluster()) {
			return commands.abandonWhenCancelled(
					inOrder(() -> this.scripts.leases().run(commands, keyBytes, leases, now, operation)));
		}
		// each lease is one key, so one call each (no two leases need to change together)
		List<CompletableFuture<List<Boolean>>> calls = new ArrayList<>(leases.size());
		for (int i = 0; i < leases.size(); i++) {
			calls.add(this.scripts.leases().run(commands, new byte[][] { keyBytes[i] }, List.of(leases.get(i)), now,
					operation));
		}
		return commands.abandonWhenCancelled(CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
			.thenApply((done) -> calls.stream().map((call) -> call.join().get(0)).toList()));
	}

	@Override
	public void cancel(List<RateLimitCheck> checks) {
		await(cancelAsync(checks));
	}

	/**
	 * Cancels a reservation without blocking; see {@link #cancel}. The checks of reservable algorithms give their
	 * cost back in one call ({@code ratelimit.lua}'s refund, which for these algorithms needs no admission time); in
	 * a Cluster, one call per check, concurrently.
	 * @param checks the request's checks, with the costs they were admitted with
	 * @return done when every cost is given back
	 */
	@Override
	public CompletableFuture<Void> cancelAsync(List<RateLimitCheck> checks) {
		List<RateLimitCheck> reserved = checks.stream()
			.filter((check) -> check.cost() > 0 && check.policy().algorithm().supportsReservations())
			.toList();
		if (reserved.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		IssuedCommands commands = call();
		Long now = now();
		byte[][] keyBytes = keys(reserved, (check) -> key(check.policy(), check.subject()));
		RateLimitScript.Mode refund = RateLimitScript.Mode.refund(0);
		if (reserved.size() == 1 || !this.connection.isCluster()) {
			return commands.abandonWhenCancelled(inOrder(() -> this.scripts.general()
				.run(commands, keyBytes, reserved, now, refund, "")
				.thenApply((reply) -> null)));
		}
		List<CompletableFuture<RateLimitScript.Reply>> calls = new ArrayList<>(reserved.size());
		for (int i = 0; i < reserved.size(); i++) {
			calls.add(this.scripts.general().run(commands, new byte[][] { keyBytes[i] }, List.of(reserved.get(i)), now,
					refund, ""));
		}
		return commands.abandonWhenCancelled(CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)));
	}

	/**
	 * Applies the flushes of local views ({@code sync.lua}): one call, or in a Cluster one per hash slot, concurrently.
	 * Each key's G-counter entries are kept in a hash beside it, {@code <key>:s} (same slot), which expires with it.
	 * @param flushes the flushes
	 * @return the state of each flush's key after it, with Redis's time
	 */
	@Override
	public CompletableFuture<SyncReply> sync(List<SyncFlush> flushes) {
		IssuedCommands commands = call();
		Long now = now();
		String[] keys = new String[flushes.size()];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = key(flushes.get(i).policy(), flushes.get(i).subject());
		}
		if (!this.connection.isCluster()) {
			return commands.abandonWhenCancelled(
					inOrder(() -> this.syncScript.run(commands, syncKeys(keys, null), flushes, now)));
		}
		Map<Integer, List<Integer>> slots = new LinkedHashMap<>();
		for (int i = 0; i < keys.length; i++) {
			slots.computeIfAbsent(SlotHash.getSlot(keys[i]), (slot) -> new ArrayList<>()).add(i);
		}
		List<CompletableFuture<SyncReply>> calls = new ArrayList<>(slots.size());
		List<List<Integer>> groups = new ArrayList<>(slots.values());
		for (List<Integer> group : groups) {
			calls.add(this.syncScript.run(commands, syncKeys(keys, group), group.stream().map(flushes::get).toList(),
					now));
		}
		return commands.abandonWhenCancelled(CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
			.thenApply((done) -> {
				Object[] states = new Object[flushes.size()];
				long time = 0;
				for (int g = 0; g < groups.size(); g++) {
					SyncReply reply = calls.get(g).join();
					time = Math.max(time, reply.nowMicros());
					for (int j = 0; j < groups.get(g).size(); j++) {
						states[groups.get(g).get(j)] = reply.states().get(j);
					}
				}
				return new SyncReply(time, Arrays.asList(states));
			}));
	}

	/**
	 * Decides checks of {@code scope: global} rules on the merged region entries of their keys ({@code region.lua}),
	 * kept in a hash beside each key, {@code <key>:g} (same slot). In a Cluster, checks whose keys lie in different
	 * slots are decided by one call per slot: the reply is then admitted only if every call was, and the entries that
	 * a call counted stand in it for the caller to give back.
	 * @param checks the checks
	 * @param region this region
	 * @param commit {@code false} to only read
	 * @return the merged states and this region's entries after the call
	 */
	@Override
	public CompletableFuture<RegionReply> count(List<RateLimitCheck> checks, String region, boolean commit) {
		IssuedCommands commands = call();
		Long now = now();
		byte[][] keys = keys(checks, (check) -> key(check.policy(), check.subject()) + ":g");
		return perSlot(commands, keys, checks, (groupKeys, group) -> this.regionScript.count(commands, groupKeys,
				group, region, commit, now));
	}

	/**
	 * Gives units of {@code scope: global} rules back under this region's refund entries.
	 * @param consumptions what was counted
	 * @param region this region
	 * @return the merged states after, with this region's refund entries
	 */
	@Override
	public CompletableFuture<RegionReply> refund(List<Consumption> consumptions, String region) {
		IssuedCommands commands = call();
		Long now = now();
		byte[][] keys = keys(consumptions,
				(consumption) -> key(consumption.policy(), consumption.subject()) + ":g");
		return perSlot(commands, keys, consumptions, (groupKeys, group) -> this.regionScript.refund(commands,
				groupKeys, group, region, now));
	}

	/**
	 * Charges units of {@code scope: global} rules under this region's count entries, without a limit check.
	 * @param charges the units charged, each at its request's admission time
	 * @param region this region
	 * @return the merged states after, with this region's count entries
	 */
	@Override
	public CompletableFuture<RegionReply> charge(List<Consumption> charges, String region) {
		IssuedCommands commands = call();
		Long now = now();
		byte[][] keys = keys(charges, (charge) -> key(charge.policy(), charge.subject()) + ":g");
		return perSlot(commands, keys, charges, (groupKeys, group) -> this.regionScript.charge(commands, groupKeys,
				group, region, now));
	}

	/**
	 * Merges another region's entries into this Redis, keeping the larger value per field.
	 * @param entries the entries, one element per key
	 * @return done when merged
	 */
	@Override
	public CompletableFuture<Void> merge(List<RegionEntries> entries) {
		IssuedCommands commands = call();
		Long now = now();
		byte[][] keys = keys(entries, (element) -> key(element.policy(), element.subject()) + ":g");
		return perSlot(commands, keys, entries, (groupKeys, group) -> this.regionScript
			.merge(commands, groupKeys, group, now)
			.thenApply((done) -> new RegionReply(0, true, List.of()))).thenAccept((reply) -> {
			});
	}

	/** Clears a key's region entries ({@link #reset} clears them too, with the rest of the key's state). */
	@Override
	public void clear(RateLimitPolicy policy, String subject) {
		byte[] key = (key(policy, subject) + ":g").getBytes(StandardCharsets.UTF_8);
		IssuedCommands commands = call();
		await(commands.abandonWhenCancelled(inOrder(() -> commands.issue((redis) -> redis.del(key)))));
	}

	/** Runs a region script once for all items, or in a Cluster once per slot, and joins the replies in order. */
	private <T> CompletableFuture<RegionReply> perSlot(IssuedCommands commands, byte[][] keys, List<T> items,
			BiFunction<byte[][], List<T>, CompletableFuture<RegionReply>> run) {
		if (!this.connection.isCluster() || oneSlot(keys)) {
			return commands.abandonWhenCancelled(inOrder(() -> run.apply(keys, items)));
		}
		Map<Integer, List<Integer>> slots = new LinkedHashMap<>();
		for (int i = 0; i < keys.length; i++) {
			slots.computeIfAbsent(SlotHash.getSlot(keys[i]), (slot) -> new ArrayList<>()).add(i);
		}
		List<List<Integer>> groups = new ArrayList<>(slots.values());
		List<CompletableFuture<RegionReply>> calls = new ArrayList<>(groups.size());
		for (List<Integer> group : groups) {
			byte[][] groupKeys = group.stream().map((i) -> keys[i]).toArray(byte[][]::new);
			calls.add(run.apply(groupKeys, group.stream().map(items::get).toList()));
		}
		return commands.abandonWhenCancelled(CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
			.thenApply((done) -> {
				RegionState[] states = new RegionState[items.size()];
				long time = 0;
				boolean admitted = true;
				boolean stated = false;
				for (int g = 0; g < groups.size(); g++) {
					RegionReply reply = calls.get(g).join();
					time = Math.max(time, reply.nowMicros());
					admitted &= reply.admitted();
					for (int j = 0; j < reply.states().size(); j++) {
						states[groups.get(g).get(j)] = reply.states().get(j);
						stated = true;
					}
				}
				// a merge replies no states
				return new RegionReply(time, admitted, stated ? Arrays.asList(states) : List.of());
			}));
	}

	/** The keys of some flushes (all, or a group's) and their entries hashes, in pairs. */
	private static byte[][] syncKeys(String[] keys, @Nullable List<Integer> group) {
		int n = (group != null) ? group.size() : keys.length;
		byte[][] bytes = new byte[2 * n][];
		for (int j = 0; j < n; j++) {
			String key = keys[(group != null) ? group.get(j) : j];
			bytes[2 * j] = key.getBytes(StandardCharsets.UTF_8);
			bytes[2 * j + 1] = (key + ":s").getBytes(StandardCharsets.UTF_8);
		}
		return bytes;
	}

	/**
	 * Loads the scripts into Redis now. Calls made before would fall back to {@code EVAL} on {@code NOSCRIPT}, which
	 * is always correct but, for calls pipelined from one thread, can reorder them; in a Cluster this loads them on
	 * the node that the connection picks, others load on first use.
	 */
	public void loadScripts() {
		IssuedCommands commands = call();
		await(commands.abandonWhenCancelled(CompletableFuture.allOf(this.scripts.general().load(commands),
				this.scripts.gcra().load(commands), this.scripts.leases().load(commands), this.syncScript.load(commands),
				this.regionScript.load(commands))));
	}

	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		String key = this.keys.key(policy.name(), subject);
		// a distinct check above the exact limit keeps its window start beside its HyperLogLog (same slot)
		IssuedCommands commands = call();
		await(commands.abandonWhenCancelled(inOrder(() -> commands.issue((redis) -> redis
			.del(key.getBytes(StandardCharsets.UTF_8), (key + ":w").getBytes(StandardCharsets.UTF_8),
					(key + ":s").getBytes(StandardCharsets.UTF_8), (key + ":g").getBytes(StandardCharsets.UTF_8))))));
	}

	/**
	 * Returns the command timeout: the bound of the blocking forms, and the timeout the limiters apply to the
	 * non-blocking ones (whose futures do not time out by themselves).
	 */
	@Override
	public Duration timeout() {
		return this.commandTimeout;
	}

	/**
	 * Returns the masters of a Redis Cluster, whose failures a limiter isolates from each other; {@code null} for a
	 * standalone or Sentinel Redis.
	 */
	@Override
	public @Nullable StoreNodes nodes() {
		return this.nodes;
	}

	/** Returns the key under which a subject's state of a policy is stored. */
	public String key(RateLimitPolicy policy, String subject) {
		return this.keys.key(policy.name(), subject);
	}

	/**
	 * Returns whether the store's connection rejects commands while disconnected (its own connection factory, or the
	 * application's when that one does), rather than queueing them for after the reconnect.
	 */
	public boolean rejectsWhileDisconnected() {
		return !this.queuesWhileDisconnected;
	}

	/** Returns the commands of one call on the held connection. */
	private IssuedCommands call() {
		return new IssuedCommands(this.connection.commands(), this.queuesWhileDisconnected);
	}

	/** Closes the store's connection (a Spring Data factory's shared connection is given back, not closed). */
	@Override
	public void close() {
		this.connection.close();
	}

	private <T> T await(CompletableFuture<T> future) {
		try {
			return future.get(this.commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// abandons the call (see IssuedCommands): no more commands, and what it consumed is given back
			if (!future.cancel(true) && future.isDone() && !future.isCompletedExceptionally()) {
				return future.join(); // the answer came as the wait ended: use it rather than abandon it
			}
			throw new RateLimitStoreException("Redis did not answer within " + this.commandTimeout, ex);
		}
		catch (ExecutionException ex) {
			if (RedisOutOfMemoryException.isOutOfMemory(ex.getCause())) {
				throw new RedisOutOfMemoryException(ex.getCause());
			}
			throw new RateLimitStoreException("Redis failed: " + ex.getCause().getMessage(), ex.getCause());
		}
		catch (InterruptedException ex) {
			future.cancel(true);
			Thread.currentThread().interrupt();
			throw new RateLimitStoreException("Interrupted while waiting for Redis", ex);
		}
	}

}
