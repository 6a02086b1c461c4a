package dev.ratelimit.region;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.Futures;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreNodes;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A store that decides the checks of rules with {@code scope: global} on the sum of every region's entries in this
 * region's {@link RegionBackend}, and everything else in the region's shared store; and that ships this region's
 * entries to every peer region every replication interval, on its own thread, never on a request's.
 * <p>
 * Each admitted unit is counted once, in this region's entry of the key's window; the entry's value after the count
 * is queued for every peer, which keeps the larger of its value and the one shipped. A peer that cannot be reached
 * keeps its queue (the largest value per entry, bounded) and receives it when it answers again, so regions converge
 * to the same totals once their links carry the entries. Until then each region decides on what it has: the
 * over-admission is the units the other regions admitted that this one has not received yet (docs/consistency.md).
 * <p>
 * A request with checks of both kinds counts the global ones first; when the shared store then denies the request,
 * the global units are given back under this region's refund entry, so the request stays all or nothing.
 */
public final class RegionalStore implements RateLimitStore, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RegionalStore.class);

	private final RateLimitStore store;

	private final RegionBackend backend;

	private final String region;

	private final List<Peer> peers;

	private final Predicate<String> global;

	private final Duration timeout;

	private final long maxPending;

	private final LongSupplier localMicros;

	private final LongSupplier nanoTime;

	private final @Nullable ScheduledExecutorService replicator;

	/**
	 * Creates a store that replicates on its own thread every {@code interval}.
	 * @param store the region's shared store, which decides the other checks
	 * @param backend the region's store of region entries (the same Redis)
	 * @param region this region's name
	 * @param peers every other region's store of region entries, by region name
	 * @param global whether a rule (policy name) has {@code scope: global}
	 * @param interval how often entries are shipped to the peers
	 * @param timeout how long one replication call may take before it counts as failed
	 * @param maxPending the most entries kept per peer while it does not acknowledge them
	 */
	public RegionalStore(RateLimitStore store, RegionBackend backend, String region, Map<String, RegionBackend> peers,
			Predicate<String> global, Duration interval, Duration timeout, long maxPending) {
		this(store, backend, region, peers, global, timeout, maxPending, RegionalStore::systemMicros,
				System::nanoTime, interval);
	}

	/**
	 * Creates a store on the given clocks that replicates only when {@link #replicate} is called: for tests.
	 * @param store the region's shared store
	 * @param backend the region's store of region entries
	 * @param region this region's name
	 * @param peers the other regions' stores of region entries, by name
	 * @param global whether a rule has {@code scope: global}
	 * @param timeout how long one replication call may take
	 * @param maxPending the most entries kept per peer
	 * @param localMicros this instance's clock in microseconds
	 * @param nanoTime the time for lags
	 */
	public RegionalStore(RateLimitStore store, RegionBackend backend, String region, Map<String, RegionBackend> peers,
			Predicate<String> global, Duration timeout, long maxPending, LongSupplier localMicros,
			LongSupplier nanoTime) {
		this(store, backend, region, peers, global, timeout, maxPending, localMicros, nanoTime, null);
	}

	private RegionalStore(RateLimitStore store, RegionBackend backend, String region, Map<String, RegionBackend> peers,
			Predicate<String> global, Duration timeout, long maxPending, LongSupplier localMicros,
			LongSupplier nanoTime, @Nullable Duration interval) {
		this.store = store;
		this.backend = backend;
		this.region = region;
		this.peers = peers.entrySet().stream().map((peer) -> new Peer(peer.getKey(), peer.getValue())).toList();
		this.global = global;
		this.timeout = timeout;
		this.maxPending = maxPending;
		this.localMicros = localMicros;
		this.nanoTime = nanoTime;
		if (interval != null) {
			this.replicator = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "ratelimit-replication");
				thread.setDaemon(true);
				return thread;
			});
			this.replicator.scheduleWithFixedDelay(this::replicate, interval.toNanos(), interval.toNanos(),
					TimeUnit.NANOSECONDS);
		}
		else {
			this.replicator = null;
		}
	}

	private static long systemMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

	/**
	 * Returns whether a check is decided on the regions' merged entries: its rule has {@code scope: global}, its
	 * algorithm is a window and it does not wait for a reservation.
	 * @param check the check
	 * @return {@code true} if it is decided across regions
	 */
	public boolean decidesGlobally(RateLimitCheck check) {
		return RegionCounters.supports(check.policy()) && check.maxWait().isZero()
				&& this.global.test(check.policy().name());
	}

	@Override
	public List<Decision> evaluate(List<RateLimitCheck> checks) {
		return evaluateAsync(checks).join();
	}

	@Override
	public List<Decision> peek(List<RateLimitCheck> checks) {
		return peekAsync(checks).join();
	}

	@Override
	public CompletableFuture<List<Decision>> evaluateAsync(List<RateLimitCheck> checks) {
		return decide(checks, true);
	}

	@Override
	public CompletableFuture<List<Decision>> peekAsync(List<RateLimitCheck> checks) {
		return decide(checks, false);
	}

	private CompletableFuture<List<Decision>> decide(List<RateLimitCheck> checks, boolean commit) {
		List<Integer> globalIndexes = new ArrayList<>();
		List<Integer> sharedIndexes = new ArrayList<>();
		for (int i = 0; i < checks.size(); i++) {
			(decidesGlobally(checks.get(i)) ? globalIndexes : sharedIndexes).add(i);
		}
		if (globalIndexes.isEmpty()) {
			return commit ? this.store.evaluateAsync(checks) : this.store.peekAsync(checks);
		}
		List<RateLimitCheck> globalChecks = globalIndexes.stream().map(checks::get).toList();
		CompletableFuture<RegionReply> counted = this.backend.count(globalChecks, this.region, commit)
			.thenCompose((reply) -> {
				queue(globalChecks, reply);
				// a call per slot in a Cluster may have counted in one slot what another slot denied
				return reply.admitted() ? CompletableFuture.completedFuture(reply)
						: giveBack(globalChecks, reply).thenApply((ignored) -> reply);
			});
		if (sharedIndexes.isEmpty()) {
			return counted.thenApply((reply) -> RegionCounters.decisions(globalChecks, reply));
		}
		List<RateLimitCheck> sharedChecks = sharedIndexes.stream().map(checks::get).toList();
		return counted.thenCompose((reply) -> {
			List<Decision> globalDecisions = RegionCounters.decisions(globalChecks, reply);
			if (!reply.admitted()) {
				return peekWithout(sharedChecks)
					.thenApply((shared) -> merge(checks.size(), globalIndexes, globalDecisions, sharedIndexes, shared));
			}
			CompletableFuture<List<Decision>> sharedCall = commit ? this.store.evaluateAsync(sharedChecks)
					: this.store.peekAsync(sharedChecks);
			return sharedCall.thenCompose((shared) -> {
				if (admitted(sharedChecks, shared)) {
					return CompletableFuture.completedFuture(
							merge(checks.size(), globalIndexes, globalDecisions, sharedIndexes, shared));
				}
				// denied there: the global checks are reported without the request, whose units they give back
				List<Decision> without = RegionCounters.decisions(globalChecks,
						new RegionReply(reply.nowMicros(), false, reply.states()));
				CompletableFuture<Void> back = commit ? giveBack(globalChecks, reply)
						: CompletableFuture.completedFuture(null);
				return back.thenApply((ignored) -> merge(checks.size(), globalIndexes, without, sharedIndexes, shared));
			});
		});
	}

	/**
	 * Reports the shared checks of a request denied here as a store reports the checks of a denied request: each that
	 * would not fit as denied, each that would as a look without the request.
	 */
	private CompletableFuture<List<Decision>> peekWithout(List<RateLimitCheck> checks) {
		return this.store.peekAsync(checks).thenCompose((decisions) -> {
			List<Integer> fitting = new ArrayList<>();
			for (int i = 0; i < checks.size(); i++) {
				if (decisions.get(i).allowed() && checks.get(i).cost() > 0) {
					fitting.add(i);
				}
			}
			if (fitting.isEmpty()) {
				return CompletableFuture.completedFuture(decisions);
			}
			return this.store.peekAsync(fitting.stream().map((i) -> checks.get(i).withCost(0)).toList())
				.thenApply((looks) -> {
					List<Decision> reported = new ArrayList<>(decisions);
					for (int j = 0; j < fitting.size(); j++) {
						reported.set(fitting.get(j), looks.get(j));
					}
					return reported;
				});
		});
	}

	/** Gives back what a request counted across regions when the shared store denied it. */
	private CompletableFuture<Void> giveBack(List<RateLimitCheck> checks, RegionReply reply) {
		List<Consumption> counted = new ArrayList<>();
		Instant at = Instant.EPOCH.plusNanos(reply.nowMicros() * 1_000L);
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			if (reply.states().get(i).entry() > 0 && check.cost() > 0) {
				counted.add(new Consumption(check.policy(), check.subject(), check.cost(), at));
			}
		}
		if (counted.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		return refundGlobally(counted).thenAccept((ignored) -> {
		});
	}

	private static boolean admitted(List<RateLimitCheck> checks, List<Decision> decisions) {
		for (int i = 0; i < checks.size(); i++) {
			if (!checks.get(i).shadow() && !decisions.get(i).allowed()) {
				return false;
			}
		}
		return true;
	}

	private static List<Decision> merge(int size, List<Integer> first, List<Decision> firstDecisions,
			List<Integer> second, List<Decision> secondDecisions) {
		Decision[] merged = new Decision[size];
		for (int i = 0; i < first.size(); i++) {
			merged[first.get(i)] = firstDecisions.get(i);
		}
		for (int i = 0; i < second.size(); i++) {
			merged[second.get(i)] = secondDecisions.get(i);
		}
		return Arrays.asList(merged);
	}

	/** Queues, for every peer, this region's entries that a reply says were written. */
	private void queue(List<RateLimitCheck> checks, RegionReply reply) {
		for (int i = 0; i < checks.size(); i++) {
			RegionState state = reply.states().get(i);
			if (state.entry() > 0) {
				RateLimitCheck check = checks.get(i);
				queue(check.policy(), check.subject(), RegionCounters.field(this.region, state.window()),
						state.entry());
			}
		}
	}

	private void queue(RateLimitPolicy policy, String subject, String field, long value) {
		if (this.peers.isEmpty()) {
			return;
		}
		long now = this.nanoTime.getAsLong();
		Entry entry = new Entry(policy, subject, field);
		for (Peer peer : this.peers) {
			if (peer.pending.size() >= this.maxPending && !peer.pending.containsKey(entry)) {
				peer.dropped.increment();
				continue;
			}
			peer.pending.merge(entry, new Pending(value, now),
					(old, added) -> (old.value >= added.value) ? old : new Pending(added.value, old.sinceNanos));
		}
	}

	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		return refundAsync(consumptions).join();
	}

	@Override
	public CompletableFuture<List<Decision>> refundAsync(List<Consumption> consumptions) {
		List<Integer> globalIndexes = new ArrayList<>();
		List<Integer> sharedIndexes = new ArrayList<>();
		for (int i = 0; i < consumptions.size(); i++) {
			(decidesGlobally(consumptions.get(i).check()) ? globalIndexes : sharedIndexes).add(i);
		}
		if (globalIndexes.isEmpty()) {
			return this.store.refundAsync(consumptions);
		}
		List<Consumption> globalRefunds = globalIndexes.stream().map(consumptions::get).toList();
		CompletableFuture<List<Decision>> refunded = refundGlobally(globalRefunds);
		if (sharedIndexes.isEmpty()) {
			return refunded;
		}
		CompletableFuture<List<Decision>> shared = this.store
			.refundAsync(sharedIndexes.stream().map(consumptions::get).toList());
		return refunded.thenCombine(shared,
				(globalDecisions, sharedDecisions) -> merge(consumptions.size(), globalIndexes, globalDecisions,
						sharedIndexes, sharedDecisions));
	}

	private CompletableFuture<List<Decision>> refundGlobally(List<Consumption> consumptions) {
		return this.backend.refund(consumptions, this.region).thenApply((reply) -> {
			queue(consumptions, reply, RegionCounters::refundField);
			return RegionCounters.decisions(consumptions.stream().map((each) -> each.check().withCost(0)).toList(),
					reply);
		});
	}

	/**
	 * Queues, for every peer, this region's entries of the consumptions' windows that a refund or charge wrote
	 * ({@code field} names the entry from the region and the window).
	 */
	private void queue(List<Consumption> consumptions, RegionReply reply, BiFunction<String, Long, String> field) {
		for (int i = 0; i < consumptions.size(); i++) {
			Consumption consumption = consumptions.get(i);
			RegionState state = reply.states().get(i);
			if (state.entry() > 0) {
				long window = RegionCounters.windowOf(consumption.policy(), consumption.subject(),
						consumption.atMicros());
				queue(consumption.policy(), consumption.subject(), field.apply(this.region, window), state.entry());
			}
		}
	}

	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		return Futures.await(settleAsync(settlements));
	}

	/**
	 * Settles the checks of rules without {@code scope: global} in the shared store, and those of global rules in this
	 * region's entries: a charge adds to this region's count entry of the admission's window without a limit check
	 * (the sum over the regions may so exceed the limit: debt, which every region sees once the entry has
	 * replicated), a give-back is a refund under this region's refund entry; both are queued for the peers.
	 */
	@Override
	public CompletableFuture<List<Decision>> settleAsync(List<Settlement> settlements) {
		List<Integer> globalIndexes = new ArrayList<>();
		List<Integer> sharedIndexes = new ArrayList<>();
		for (int i = 0; i < settlements.size(); i++) {
			(decidesGlobally(settlements.get(i).consumption().check()) ? globalIndexes : sharedIndexes).add(i);
		}
		if (globalIndexes.isEmpty()) {
			return this.store.settleAsync(settlements);
		}
		List<Consumption> charges = new ArrayList<>();
		List<Consumption> refunds = new ArrayList<>();
		for (int i : globalIndexes) {
			Settlement settlement = settlements.get(i);
			Consumption reserved = settlement.consumption();
			if (settlement.charged() > 0) {
				charges.add(new Consumption(reserved.policy(), reserved.subject(), settlement.charged(), reserved.at()));
			}
			else if (settlement.refunded() > 0) {
				refunds.add(settlement.refund());
			}
		}
		CompletableFuture<?> charged = charges.isEmpty() ? CompletableFuture.completedFuture(null)
				: this.backend.charge(charges, this.region).thenAccept((reply) -> queue(charges, reply,
						RegionCounters::field));
		CompletableFuture<List<Decision>> globalDecisions = charged
			.thenCompose((ignored) -> refunds.isEmpty() ? CompletableFuture.completedFuture(List.of())
					: refundGlobally(refunds))
			.thenCompose((ignored) -> decide(
					globalIndexes.stream().map((i) -> settlements.get(i).inspection()).toList(), false));
		if (sharedIndexes.isEmpty()) {
			return globalDecisions;
		}
		CompletableFuture<List<Decision>> shared = this.store
			.settleAsync(sharedIndexes.stream().map(settlements::get).toList());
		return globalDecisions.thenCombine(shared,
				(globalDecided, sharedDecided) -> merge(settlements.size(), globalIndexes, globalDecided,
						sharedIndexes, sharedDecided));
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		return this.store.release(leases);
	}

	@Override
	public CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
		return this.store.releaseAsync(leases);
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return this.store.renew(leases);
	}

	@Override
	public CompletableFuture<List<Boolean>> renewAsync(List<Lease> leases) {
		return this.store.renewAsync(leases);
	}

	@Override
	public void cancel(List<RateLimitCheck> checks) {
		this.store.cancel(checks);
	}

	@Override
	public CompletableFuture<Void> cancelAsync(List<RateLimitCheck> checks) {
		return this.store.cancelAsync(checks);
	}

	@Override
	public @Nullable Duration timeout() {
		return this.store.timeout();
	}

	@Override
	public @Nullable StoreNodes nodes() {
		return this.store.nodes();
	}

	/**
	 * Clears a subject's state in this region's store; a {@code scope: global} key's entries from other regions come
	 * back with their next replication.
	 */
	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		this.store.reset(policy, subject);
		if (RegionCounters.supports(policy) && this.global.test(policy.name())) {
			this.backend.clear(policy, subject);
		}
	}

	/**
	 * Ships the pending entries to every peer that has none in flight, one call per peer; called by the replication
	 * thread (and by tests).
	 * @return done when every call this started has completed (failed calls complete it too)
	 */
	public CompletableFuture<Void> replicate() {
		List<CompletableFuture<?>> calls = new ArrayList<>();
		for (Peer peer : this.peers) {
			if (peer.inFlight.compareAndSet(false, true)) {
				calls.add(replicate(peer));
			}
		}
		return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
	}

	private CompletableFuture<?> replicate(Peer peer) {
		long nowMicros = this.localMicros.getAsLong();
		Map<Entry, Long> sent = new HashMap<>();
		Map<List<Object>, Map<String, Long>> byKey = new LinkedHashMap<>();
		peer.pending.forEach((entry, pending) -> {
			long window = RegionCounters.windowOfField(entry.field);
			if (window + 2 * entry.policy.periodMicros() <= nowMicros) {
				// the window weighs nothing any more, anywhere
				peer.pending.remove(entry, pending);
				return;
			}
			sent.put(entry, pending.value);
			byKey.computeIfAbsent(List.of(entry.policy, entry.subject), (k) -> new HashMap<>())
				.put(entry.field, pending.value);
		});
		if (sent.isEmpty()) {
			peer.done(this.nanoTime.getAsLong(), true, null);
			return CompletableFuture.completedFuture(null);
		}
		List<RegionEntries> entries = new ArrayList<>(byKey.size());
		byKey.forEach((key, fields) -> entries
			.add(new RegionEntries((RateLimitPolicy) key.get(0), (String) key.get(1), fields)));
		CompletableFuture<Void> call;
		try {
			call = peer.backend.merge(entries);
		}
		catch (RuntimeException ex) {
			call = CompletableFuture.failedFuture(ex);
		}
		return call.orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS).handle((ignored, failure) -> {
			if (failure == null) {
				sent.forEach((entry, value) -> peer.pending.computeIfPresent(entry,
						(k, pending) -> (pending.value <= value) ? null : pending));
				peer.replicated.add(sent.size());
			}
			else {
				peer.failures.increment();
				if (peer.reachable) {
					logger.warn("Cannot replicate rate limit entries to region '" + peer.region + "' ("
							+ describe(failure) + "); it keeps deciding on what it has, and so does this region");
				}
			}
			peer.done(this.nanoTime.getAsLong(), failure == null, failure);
			return null;
		});
	}

	private static String describe(Throwable failure) {
		Throwable cause = (failure.getCause() != null) ? failure.getCause() : failure;
		return cause.getClass().getSimpleName() + ((cause.getMessage() != null) ? ": " + cause.getMessage() : "");
	}

	/**
	 * Returns how replication to each peer region stands.
	 * @return one status per peer
	 */
	public List<PeerStatus> peers() {
		return this.peers.stream()
			.map((peer) -> new PeerStatus(peer.region, peer.reachable, peer.pending.size(),
					Duration.ofNanos(peer.lagNanos), peer.replicated.sum(), peer.failures.sum(), peer.dropped.sum(),
					peer.lastFailure))
			.toList();
	}

	/** Returns this region's name. */
	public String region() {
		return this.region;
	}

	/** Stops replicating after one last attempt to ship what is pending (bounded by the replication timeout). */
	@Override
	public void close() {
		if (this.replicator != null) {
			this.replicator.shutdownNow();
		}
		for (Peer peer : this.peers) {
			peer.inFlight.set(false);
		}
		try {
			replicate().get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			logger.warn("Some rate limit entries were not replicated at shutdown: " + describe(ex));
		}
	}

	private record Entry(RateLimitPolicy policy, String subject, String field) {
	}

	private record Pending(long value, long sinceNanos) {
	}

	private static final class Peer {

		final String region;

		final RegionBackend backend;

		final Map<Entry, Pending> pending = new ConcurrentHashMap<>();

		final AtomicBoolean inFlight = new AtomicBoolean();

		final LongAdder replicated = new LongAdder();

		final LongAdder failures = new LongAdder();

		final LongAdder dropped = new LongAdder();

		volatile boolean reachable = true;

		volatile @Nullable String lastFailure;

		volatile long lagNanos;

		Peer(String region, RegionBackend backend) {
			this.region = region;
			this.backend = backend;
		}

		void done(long nowNanos, boolean succeeded, @Nullable Throwable failure) {
			if (succeeded && !this.reachable) {
				logger.info("Replicating rate limit entries to region '" + this.region + "' again");
			}
			this.reachable = succeeded;
			this.lastFailure = (failure != null) ? describe(failure) : null;
			long oldest = nowNanos;
			for (Pending pending : this.pending.values()) {
				oldest = Math.min(oldest, pending.sinceNanos);
			}
			this.lagNanos = nowNanos - oldest;
			this.inFlight.set(false);
		}

	}

}
