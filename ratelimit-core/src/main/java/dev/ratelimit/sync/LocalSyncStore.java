package dev.ratelimit.sync;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.ratelimit.Algorithm;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.algorithm.Algorithms;
import dev.ratelimit.algorithm.LimitAlgorithm;
import dev.ratelimit.algorithm.Outcome;
import dev.ratelimit.algorithm.Syncable;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreNodes;
import dev.ratelimit.store.Subjects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A store that decides the checks of rules in {@code sync: local} mode from this instance's own view of each key, and
 * everything else in the shared store. A view is the last shared state the instance saw plus what it admitted since;
 * a background flusher sends the admissions of every view that has some, every {@link SyncSettings#interval} of its
 * rule, in one {@link SyncBackend#sync} call, and takes the fresh shared state from the reply. A view also flushes at
 * once when its unsynchronized units would pass {@link SyncSettings#threshold}: the request that would pass it waits
 * for that flush (one round trip per threshold's worth of units), which is what bounds the over-admission to about
 * {@code (instances + 1) x threshold} (docs/consistency.md).
 * <p>
 * The first decision on a key this instance has no view of waits for one flush that only reads (it seeds the view),
 * so a cold key is never admitted blindly. While the shared store cannot be reached, views keep deciding on what they
 * have (no fallback store is involved), their units accumulate, and the next flush that gets through sends them: each
 * view's units are a G-counter entry that the store applies exactly once ({@link SyncBackend}), so a store that comes
 * back never ends lower than what was admitted. Closing the store flushes every view first; an instance that stops
 * without closing loses at most its unsynchronized units.
 * <p>
 * A request with checks of both kinds is decided locally first, then in the shared store; a shared denial gives the
 * local units back, so the request stays all or nothing. Checks that wait for a reservation ({@code max-wait}) are
 * always decided in the shared store.
 */
public final class LocalSyncStore implements RateLimitStore, AutoCloseable {

	private static final Log logger = LogFactory.getLog(LocalSyncStore.class);

	/** How often a request that meets a full view tries a flush before it decides on the view as it is. */
	private static final int FLUSH_ATTEMPTS = 3;

	private final RateLimitStore store;

	private final SyncBackend backend;

	private final Function<String, @Nullable SyncSettings> settings;

	private final LongSupplier localMicros;

	private final LongSupplier nanoTime;

	private final Cache<String, View> views;

	private final Set<View> dirty = ConcurrentHashMap.newKeySet();

	private final String instance = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);

	private final @Nullable ScheduledExecutorService flusher;

	private final SyncListener listener;

	private long viewIds;

	/** The shared store's time minus this instance's, from the last reply. */
	private volatile long offsetMicros;

	private volatile boolean closed;

	/**
	 * Creates a store that flushes on its own thread every {@code tick}.
	 * @param store the shared store, which decides the other checks
	 * @param backend where views flush to (the same shared store)
	 * @param settings the sync settings of each rule in {@code local} mode, by rule (policy) name; {@code null} for a
	 * rule decided in the shared store
	 * @param maxKeys the most views kept (an evicted view is flushed first)
	 * @param tick how often the flusher looks for views due (at most the shortest sync interval)
	 * @param listener told of flushes
	 */
	public LocalSyncStore(RateLimitStore store, SyncBackend backend, Function<String, @Nullable SyncSettings> settings,
			long maxKeys, Duration tick, SyncListener listener) {
		this(store, backend, settings, maxKeys, LocalSyncStore::systemMicros, System::nanoTime, listener, true, tick);
	}

	/**
	 * Creates a store on the given clocks that flushes only when {@link #flushDue} is called (and when a view meets its
	 * threshold or is cold): for tests.
	 * @param store the shared store
	 * @param backend where views flush to
	 * @param settings the sync settings by rule name
	 * @param maxKeys the most views kept
	 * @param localMicros this instance's clock in microseconds
	 * @param nanoTime the time for intervals
	 */
	public LocalSyncStore(RateLimitStore store, SyncBackend backend, Function<String, @Nullable SyncSettings> settings,
			long maxKeys, LongSupplier localMicros, LongSupplier nanoTime) {
		this(store, backend, settings, maxKeys, localMicros, nanoTime, SyncListener.NONE, false, Duration.ZERO);
	}

	private LocalSyncStore(RateLimitStore store, SyncBackend backend, Function<String, @Nullable SyncSettings> settings,
			long maxKeys, LongSupplier localMicros, LongSupplier nanoTime, SyncListener listener, boolean scheduled,
			Duration tick) {
		this.store = store;
		this.backend = backend;
		this.settings = settings;
		this.localMicros = localMicros;
		this.nanoTime = nanoTime;
		this.listener = listener;
		this.views = Caffeine.newBuilder()
			.maximumSize(maxKeys)
			.removalListener((String key, @Nullable View view, RemovalCause cause) -> {
				if (view != null && cause.wasEvicted() && view.unsynchronized() > 0 && !this.closed) {
					flush(List.of(view));
				}
			})
			.build();
		if (scheduled) {
			this.flusher = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "ratelimit-sync");
				thread.setDaemon(true);
				return thread;
			});
			this.flusher.scheduleWithFixedDelay(this::flushDue, tick.toNanos(), tick.toNanos(), TimeUnit.NANOSECONDS);
		}
		else {
			this.flusher = null;
		}
	}

	private static long systemMicros() {
		java.time.Instant now = java.time.Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

	/**
	 * Returns whether a check is decided from a local view: its rule is in {@code local} mode, its algorithm takes
	 * deltas, and it does not wait for a reservation.
	 * @param check the check
	 * @return {@code true} if it is decided locally
	 */
	public boolean decidesLocally(RateLimitCheck check) {
		// a calendar quota is decided exactly (its rule cannot be local): its windows are not the fixed window's grid
		return SYNCABLE.contains(check.policy().algorithm()) && check.policy().calendar() == null
				&& check.maxWait().isZero() && this.settings.apply(check.policy().name()) != null;
	}

	/** The algorithms whose reference maths is {@link Syncable}. */
	private static final Set<Algorithm> SYNCABLE = EnumSet.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET,
			Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_COUNTER);

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
		if (checks.size() == 1 && decidesLocally(checks.get(0))) {
			return decideLocally(checks, new View[] { view(checks.get(0)) }, commit, FLUSH_ATTEMPTS)
				.thenApply(LocalDecisions::decisions);
		}
		List<Integer> local = new ArrayList<>();
		List<Integer> shared = new ArrayList<>();
		for (int i = 0; i < checks.size(); i++) {
			(decidesLocally(checks.get(i)) ? local : shared).add(i);
		}
		if (local.isEmpty()) {
			return commit ? this.store.evaluateAsync(checks) : this.store.peekAsync(checks);
		}
		List<RateLimitCheck> localChecks = local.stream().map(checks::get).toList();
		List<RateLimitCheck> sharedChecks = shared.stream().map(checks::get).toList();
		View[] views = new View[localChecks.size()];
		for (int i = 0; i < views.length; i++) {
			views[i] = view(localChecks.get(i));
		}
		return decideLocally(localChecks, views, commit, FLUSH_ATTEMPTS).thenCompose((localDecisions) -> {
			if (sharedChecks.isEmpty()) {
				return CompletableFuture.completedFuture(localDecisions.decisions());
			}
			if (!localDecisions.admitted()) {
				// denied here: the shared checks are reported without the request, as a store reports its other checks
				return this.store.peekAsync(sharedChecks.stream().map((check) -> check.withCost(0)).toList())
					.thenApply((sharedDecisions) -> merge(checks.size(), local, localDecisions.decisions(), shared,
							sharedDecisions));
			}
			CompletableFuture<List<Decision>> sharedCall = commit ? this.store.evaluateAsync(sharedChecks)
					: this.store.peekAsync(sharedChecks);
			return sharedCall.thenApply((sharedDecisions) -> {
				List<Decision> localResult = localDecisions.decisions();
				if (!admitted(sharedChecks, sharedDecisions)) {
					if (commit) {
						giveBack(localChecks, views, localDecisions);
					}
					localResult = peekLocally(localChecks, views);
				}
				return merge(checks.size(), local, localResult, shared, sharedDecisions);
			});
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

	private static List<Decision> merge(int size, List<Integer> local, List<Decision> localDecisions,
			List<Integer> shared, List<Decision> sharedDecisions) {
		Decision[] merged = new Decision[size];
		for (int i = 0; i < local.size(); i++) {
			merged[local.get(i)] = localDecisions.get(i);
		}
		for (int i = 0; i < shared.size(); i++) {
			merged[shared.get(i)] = sharedDecisions.get(i);
		}
		return Arrays.asList(merged);
	}

	private View view(RateLimitCheck check) {
		String key = check.policy().name() + ':' + Subjects.safe(check.subject());
		while (true) {
			View view = this.views.get(key, (k) -> newView(check));
			if (view.policy.equals(check.policy())) {
				return view;
			}
			// the rule was overridden: a view of the old policy would decide with the old limit
			this.views.asMap().remove(key, view);
			if (view.unsynchronized() > 0) {
				flush(List.of(view));
			}
		}
	}

	@SuppressWarnings("unchecked")
	private View newView(RateLimitCheck check) {
		SyncSettings syncSettings = this.settings.apply(check.policy().name());
		long id;
		synchronized (this) {
			id = ++this.viewIds;
		}
		return new View(check.policy(), check.subject(),
				(Syncable<Object>) Algorithms.of(check.policy(), check.subject()),
				(syncSettings != null) ? syncSettings : SyncSettings.defaults(check.policy().limit()),
				this.instance + '-' + Long.toHexString(id));
	}

	private long now() {
		return this.localMicros.getAsLong() + this.offsetMicros;
	}

	/**
	 * Decides the checks under their views' locks; when a view is cold, or would pass its threshold, flushes it first
	 * and tries again (a few times; then it decides on the view as it is).
	 */
	private CompletableFuture<LocalDecisions> decideLocally(List<RateLimitCheck> checks, View[] views, boolean commit,
			int attempts) {
		List<View> toFlush = new ArrayList<>();
		LocalDecisions decided = decideLocked(checks, views, commit, attempts > 0, toFlush);
		if (decided != null) {
			return CompletableFuture.completedFuture(decided);
		}
		return flush(toFlush).thenCompose((ignored) -> decideLocally(checks, views, commit, attempts - 1));
	}

	private @Nullable LocalDecisions decideLocked(List<RateLimitCheck> checks, View[] views, boolean commit,
			boolean mayFlush, List<View> toFlush) {
		if (checks.size() == 1) {
			return decideOneLocked(checks.get(0), views[0], commit, mayFlush, toFlush);
		}
		int n = checks.size();
		Integer[] order = new Integer[n];
		Arrays.setAll(order, (i) -> i);
		Arrays.sort(order, Comparator.comparing((Integer i) -> views[i].id));
		Set<View> locked = new LinkedHashSet<>();
		try {
			for (Integer i : order) {
				if (locked.add(views[i])) {
					views[i].lock();
				}
			}
			long now = now();
			if (mayFlush) {
				long nanos = this.nanoTime.getAsLong();
				for (int i = 0; i < n; i++) {
					View view = views[i];
					if (view.needsFlush(commit ? checks.get(i).cost() : 0, nanos) && !toFlush.contains(view)) {
						toFlush.add(view);
					}
				}
				if (!toFlush.isEmpty()) {
					return null;
				}
			}
			Map<View, Object> states = new IdentityHashMap<>();
			Outcome<?>[] outcomes = new Outcome<?>[n];
			boolean admitted = true;
			for (int i = 0; i < n; i++) {
				View view = views[i];
				Object state = states.containsKey(view) ? states.get(view) : view.state;
				outcomes[i] = view.algorithm.apply(state, now, checks.get(i).cost());
				if (outcomes[i].allowed()) {
					states.put(view, outcomes[i].state());
				}
				else if (!checks.get(i).shadow()) {
					admitted = false;
				}
			}
			List<Decision> decisions = new ArrayList<>(n);
			for (int i = 0; i < n; i++) {
				RateLimitCheck check = checks.get(i);
				Outcome<?> outcome = outcomes[i];
				if (outcome.allowed() && !admitted) {
					outcome = views[i].algorithm.apply(views[i].state, now, 0);
				}
				else if (commit && outcome.allowed() && check.cost() > 0) {
					views[i].admit(outcome.state(), now, check.cost());
					this.dirty.add(views[i]);
				}
				decisions.add(Decision.ofMicros(outcome.allowed(), check.policy().limit(), outcome.remaining(),
						outcome.resetAfterMicros(), outcome.retryAfterMicros(), outcome.nextAfterMicros(), now));
			}
			return new LocalDecisions(admitted, decisions, now);
		}
		finally {
			for (View view : locked) {
				view.unlock();
			}
		}
	}

	/** {@link #decideLocked} for the common request of one local check, without its bookkeeping. */
	private @Nullable LocalDecisions decideOneLocked(RateLimitCheck check, View view, boolean commit, boolean mayFlush,
			List<View> toFlush) {
		view.lock();
		try {
			if (mayFlush && view.needsFlush(commit ? check.cost() : 0, this.nanoTime.getAsLong())) {
				toFlush.add(view);
				return null;
			}
			long now = now();
			Outcome<?> outcome = view.algorithm.apply(view.state, now, check.cost());
			if (commit && outcome.allowed() && check.cost() > 0) {
				view.admit(outcome.state(), now, check.cost());
				this.dirty.add(view);
			}
			Decision decision = Decision.ofMicros(outcome.allowed(), check.policy().limit(), outcome.remaining(),
					outcome.resetAfterMicros(), outcome.retryAfterMicros(), outcome.nextAfterMicros(), now);
			return new LocalDecisions(outcome.allowed() || check.shadow(), List.of(decision), now);
		}
		finally {
			view.unlock();
		}
	}

	private List<Decision> peekLocally(List<RateLimitCheck> checks, View[] views) {
		LocalDecisions decided = decideLocked(checks.stream().map((check) -> check.withCost(0)).toList(), views, false,
				false, new ArrayList<>());
		return (decided != null) ? decided.decisions() : List.of();
	}

	/** Gives back what a request admitted locally when the shared store denied it. */
	private void giveBack(List<RateLimitCheck> checks, View[] views, LocalDecisions decided) {
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			if (check.cost() > 0 && decided.decisions().get(i).allowed()) {
				views[i].giveBack(decided.nowMicros(), check.cost());
			}
		}
	}

	/**
	 * Flushes the views whose interval has passed since their last flush and that admitted something since; called by
	 * the flusher thread (and by tests that drive time).
	 */
	public void flushDue() {
		long nanos = this.nanoTime.getAsLong();
		List<View> due = new ArrayList<>();
		for (View view : this.dirty) {
			if (view.unsynchronized() == 0) {
				this.dirty.remove(view);
			}
			else if (nanos - view.lastFlushNanos >= view.settings.interval().toNanos()) {
				due.add(view);
			}
		}
		if (!due.isEmpty()) {
			flush(due);
		}
	}

	/**
	 * Sends the views' admissions in one call; completes (never exceptionally) when the reply is applied or the call
	 * failed. A view with a flush in flight joins that one instead.
	 */
	CompletableFuture<Void> flush(List<View> toFlush) {
		List<CompletableFuture<Void>> waits = new ArrayList<>();
		List<SyncFlush> flushes = new ArrayList<>();
		List<View> flushed = new ArrayList<>();
		List<long[]> sent = new ArrayList<>();
		long now = now();
		CompletableFuture<Void> done = new CompletableFuture<>();
		for (View view : toFlush) {
			view.lock();
			try {
				if (view.inFlight != null) {
					waits.add(view.inFlight);
					continue;
				}
				view.inFlight = done;
				view.lastFlushNanos = this.nanoTime.getAsLong();
				long[][] windows = view.toSend(now);
				for (long[] window : windows) {
					flushes.add(new SyncFlush(view.policy, view.subject, view.id, window[0], window[1], window[2]));
					flushed.add(view);
					sent.add(window);
				}
			}
			finally {
				view.unlock();
			}
		}
		if (flushes.isEmpty()) {
			done.complete(null);
		}
		else {
			long started = this.nanoTime.getAsLong();
			CompletableFuture<SyncReply> reply;
			try {
				reply = this.backend.sync(flushes);
			}
			catch (RuntimeException ex) {
				reply = CompletableFuture.failedFuture(ex);
			}
			reply.whenComplete((result, failure) -> {
				try {
					if (failure == null) {
						applyReply(result, flushed, sent);
					}
					else {
						failed(flushed, failure);
					}
					this.listener.onFlush(flushes.size(), Duration.ofNanos(this.nanoTime.getAsLong() - started),
							failure);
				}
				finally {
					for (View view : new LinkedHashSet<>(flushed)) {
						view.lock();
						try {
							view.inFlight = null;
						}
						finally {
							view.unlock();
						}
					}
					done.complete(null);
				}
			});
		}
		waits.add(done);
		return CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
	}

	private void applyReply(SyncReply reply, List<View> flushed, List<long[]> sent) {
		this.offsetMicros = reply.nowMicros() - this.localMicros.getAsLong();
		long now = reply.nowMicros();
		Map<View, Integer> last = new IdentityHashMap<>();
		for (int i = 0; i < flushed.size(); i++) {
			last.put(flushed.get(i), i);
		}
		for (Map.Entry<View, Integer> entry : last.entrySet()) {
			View view = entry.getKey();
			view.lock();
			try {
				for (int i = 0; i < flushed.size(); i++) {
					if (flushed.get(i) == view) {
						view.acknowledge(sent.get(i));
					}
				}
				view.synced(reply.states().get(entry.getValue()), now);
			}
			finally {
				view.unlock();
			}
			if (view.unsynchronized() == 0) {
				this.dirty.remove(view);
			}
		}
	}

	private void failed(List<View> flushed, Throwable failure) {
		long nanos = this.nanoTime.getAsLong();
		for (View view : flushed) {
			view.failedAtNanos = nanos;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Could not sync " + flushed.size() + " local views; they keep deciding and send their units"
					+ " with the next flush: " + failure.getMessage());
		}
	}

	/**
	 * Sends the admissions of every view that has some now, whatever its interval.
	 * @return done when the store answered (or the call failed: the units stay for the next flush)
	 */
	public CompletableFuture<Void> flushAll() {
		List<View> all = new ArrayList<>(this.views.asMap().values());
		all.removeIf((view) -> view.unsynchronized() == 0);
		return all.isEmpty() ? CompletableFuture.completedFuture(null) : flush(all);
	}

	/** Returns the units admitted by this instance's views that the shared store has not acknowledged yet. */
	public long unsynchronized() {
		long units = 0;
		for (View view : this.dirty) {
			units += view.unsynchronized();
		}
		return units;
	}

	/** Returns the number of views held. */
	public long views() {
		return this.views.estimatedSize();
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		return this.store.release(leases);
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return this.store.renew(leases);
	}

	@Override
	public CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
		return this.store.releaseAsync(leases);
	}

	@Override
	public CompletableFuture<List<Boolean>> renewAsync(List<Lease> leases) {
		return this.store.renewAsync(leases);
	}

	/** Gives back local consumptions in their views (sent with the next flush), the others in the shared store. */
	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		return refundAsync(consumptions).join();
	}

	@Override
	public CompletableFuture<List<Decision>> refundAsync(List<Consumption> consumptions) {
		List<Consumption> shared = new ArrayList<>();
		for (Consumption consumption : consumptions) {
			if (!decidesLocally(consumption.check())) {
				shared.add(consumption);
			}
		}
		CompletableFuture<List<Decision>> sharedDecisions = shared.isEmpty()
				? CompletableFuture.completedFuture(List.of()) : this.store.refundAsync(shared);
		return sharedDecisions.thenApply((decided) -> {
			List<Decision> decisions = new ArrayList<>(consumptions.size());
			int next = 0;
			for (Consumption consumption : consumptions) {
				if (decidesLocally(consumption.check())) {
					View view = view(consumption.check());
					long admittedAt = consumption.at().getEpochSecond() * 1_000_000L + consumption.at().getNano() / 1_000;
					view.refund(now(), admittedAt, consumption.cost());
					decisions.add(peekLocally(List.of(consumption.check().withCost(0)), new View[] { view }).get(0));
				}
				else {
					decisions.add(decided.get(next++));
				}
			}
			return decisions;
		});
	}

	/**
	 * Settles local consumptions in their views: a charge is admitted into the view as units of the admission's window
	 * (sent with the next flush, which the shared store absorbs without a limit check, as the view did), a refund as
	 * {@link #refund} gives back; the others in the shared store.
	 */
	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		return settleAsync(settlements).join();
	}

	@Override
	public CompletableFuture<List<Decision>> settleAsync(List<Settlement> settlements) {
		List<Settlement> shared = new ArrayList<>();
		for (Settlement settlement : settlements) {
			if (!decidesLocally(settlement.consumption().check())) {
				shared.add(settlement);
			}
		}
		CompletableFuture<List<Decision>> sharedDecisions = shared.isEmpty()
				? CompletableFuture.completedFuture(List.of()) : this.store.settleAsync(shared);
		return sharedDecisions.thenApply((decided) -> {
			List<Decision> decisions = new ArrayList<>(settlements.size());
			int next = 0;
			for (Settlement settlement : settlements) {
				Consumption consumption = settlement.consumption();
				if (decidesLocally(consumption.check())) {
					View view = view(consumption.check());
					if (settlement.charged() > 0) {
						view.charge(now(), consumption.atMicros(), settlement.charged());
						this.dirty.add(view);
					}
					else if (settlement.refunded() > 0) {
						view.refund(now(), consumption.atMicros(), settlement.refunded());
					}
					decisions.add(peekLocally(List.of(settlement.inspection()), new View[] { view }).get(0));
				}
				else {
					decisions.add(decided.get(next++));
				}
			}
			return decisions;
		});
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

	/** Forgets this instance's view of the key and resets it in the shared store. */
	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		this.views.invalidate(policy.name() + ':' + Subjects.safe(subject));
		this.store.reset(policy, subject);
	}

	/** Flushes every view (waiting at most 5 s for the store), then stops the flusher. */
	@Override
	public void close() {
		if (this.flusher != null) {
			this.flusher.shutdownNow();
		}
		long units = unsynchronized();
		if (units > 0) {
			try {
				flushAll().get(5, TimeUnit.SECONDS);
			}
			catch (TimeoutException ex) {
				logger.warn("Could not flush local views within 5 s at close: up to " + units + " units are lost");
			}
			catch (Exception ex) {
				logger.warn("Could not flush local views at close: " + ex.getMessage());
			}
		}
		this.closed = true;
		this.views.invalidateAll();
	}

	/** What the local checks of a request were decided. */
	private record LocalDecisions(boolean admitted, List<Decision> decisions, long nowMicros) {
	}

	/**
	 * This instance's view of one key: the last shared state it saw plus what it admitted since, and per window its
	 * G-counter entry: the units admitted since the view was created ({@code total}), those sent in the flush in
	 * flight ({@code sent}) and those the store acknowledged ({@code acknowledged}).
	 */
	static final class View {

		private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();

		final RateLimitPolicy policy;

		final String subject;

		final Syncable<Object> algorithm;

		final SyncSettings settings;

		final String id;

		@Nullable Object state;

		boolean seeded;

		/** window -> {window, total, acknowledged}; a window that counts nothing any more is dropped once acknowledged. */
		private final Map<Long, long[]> windows = new java.util.TreeMap<>();

		@Nullable CompletableFuture<Void> inFlight;

		volatile long lastFlushNanos;

		volatile long failedAtNanos = Long.MIN_VALUE;

		private volatile long unsynchronized;

		View(RateLimitPolicy policy, String subject, Syncable<Object> algorithm, SyncSettings settings, String id) {
			this.policy = policy;
			this.subject = subject;
			this.algorithm = algorithm;
			this.settings = settings;
			this.id = id;
		}

		void lock() {
			this.lock.lock();
		}

		void unlock() {
			this.lock.unlock();
		}

		long unsynchronized() {
			return this.unsynchronized;
		}

		/**
		 * Whether the view must flush before it decides: it has never seen the shared state, or the request would take
		 * its unsynchronized units past the threshold; not while a flush failed within the last interval (the store
		 * is away: decide on the view as it is, the flusher keeps trying).
		 */
		boolean needsFlush(long cost, long nanos) {
			boolean storeAway = this.failedAtNanos != Long.MIN_VALUE
					&& nanos - this.failedAtNanos < this.settings.interval().toNanos();
			if (storeAway) {
				return false;
			}
			return !this.seeded || (cost > 0 && this.unsynchronized + cost > this.settings.threshold());
		}

		void admit(@Nullable Object newState, long now, long cost) {
			this.state = newState;
			long window = this.algorithm.windowOf(now);
			this.windows.computeIfAbsent(window, (w) -> new long[] { w, 0, 0 })[1] += cost;
			this.unsynchronized += cost;
		}

		void giveBack(long now, long cost) {
			lock();
			try {
				long window = this.algorithm.windowOf(now);
				long[] counter = this.windows.get(window);
				if (counter != null && counter[1] - counter[2] >= cost) {
					counter[1] -= cost;
					this.unsynchronized -= cost;
				}
				this.state = this.algorithm.refund(this.state, now, now, cost);
			}
			finally {
				unlock();
			}
		}

		/** A refund of units admitted at {@code admittedAt}: taken off the view and off what it sends next. */
		void refund(long now, long admittedAt, long cost) {
			lock();
			try {
				long[] counter = this.windows.get(this.algorithm.windowOf(admittedAt));
				long unsent = (counter != null) ? counter[1] - counter[2] : 0;
				if (unsent >= cost) {
					counter[1] -= cost;
					this.unsynchronized -= cost;
					this.state = this.algorithm.refund(this.state, now, admittedAt, cost);
				}
				// else: already sent; the shared state keeps it (the conservative direction)
			}
			finally {
				unlock();
			}
		}

		/**
		 * A charge of units to a request admitted at {@code admittedAt}: admitted into the view without a limit check,
		 * as units of the admission's window that the next flush sends.
		 */
		void charge(long now, long admittedAt, long units) {
			lock();
			try {
				long window = this.algorithm.windowOf(admittedAt);
				this.windows.computeIfAbsent(window, (w) -> new long[] { w, 0, 0 })[1] += units;
				this.unsynchronized += units;
				this.state = this.algorithm.charge(this.state, now, admittedAt, units);
			}
			finally {
				unlock();
			}
		}

		/** The entries to send: every window with units not acknowledged, or the current one to read a cold view. */
		long[][] toSend(long now) {
			List<long[]> send = new ArrayList<>();
			for (long[] counter : this.windows.values()) {
				if (counter[1] > counter[2]) {
					send.add(new long[] { counter[0], counter[1], counter[2] });
				}
			}
			if (send.isEmpty()) {
				long window = this.algorithm.windowOf(now);
				long[] counter = this.windows.get(window);
				send.add(new long[] { window, (counter != null) ? counter[1] : 0, (counter != null) ? counter[2] : 0 });
			}
			return send.toArray(long[][]::new);
		}

		void acknowledge(long[] sent) {
			long[] counter = this.windows.get(sent[0]);
			if (counter != null && sent[1] > counter[2]) {
				this.unsynchronized -= sent[1] - counter[2];
				counter[2] = sent[1];
			}
		}

		/**
		 * Takes the shared state of a reply, which holds every unit acknowledged, and adds what this view admitted
		 * since the flush left.
		 */
		void synced(@Nullable Object shared, long now) {
			Object next = shared;
			for (java.util.Iterator<long[]> it = this.windows.values().iterator(); it.hasNext();) {
				long[] counter = it.next();
				long pending = counter[1] - counter[2];
				if (pending > 0) {
					next = this.algorithm.absorb(next, now, pending, counter[0]);
				}
				else if (counter[0] != 0 && counter[0] < this.algorithm.windowOf(now)
						&& this.algorithm.absorb(null, now, 1, counter[0]) == null) {
					it.remove(); // an acknowledged window that counts nothing any more
				}
			}
			this.state = next;
			this.seeded = true;
			this.failedAtNanos = Long.MIN_VALUE;
		}

	}

}
