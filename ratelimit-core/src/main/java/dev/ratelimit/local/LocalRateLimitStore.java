package dev.ratelimit.local;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.algorithm.Algorithms;
import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.LimitAlgorithm;
import dev.ratelimit.algorithm.Outcome;
import dev.ratelimit.algorithm.Reservable;
import dev.ratelimit.algorithm.Syncable;
import dev.ratelimit.algorithm.WarmingUp;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.Subjects;
import dev.ratelimit.sync.SyncBackend;
import dev.ratelimit.sync.SyncFlush;
import dev.ratelimit.sync.SyncReply;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimitStore} in this JVM's memory, running the reference maths of {@code dev.ratelimit.algorithm}.
 * <p>
 * Entries are bounded in number (least recently used beyond {@code maximumEntries} are evicted: an evicted subject
 * starts afresh) and vanish when the algorithm no longer needs them. Each entry has its own lock; a request locks the
 * entries of its checks in key order (so two requests can never wait on each other in a cycle), computes every check,
 * and writes only when the request is admitted. Requests on different keys never contend.
 * <p>
 * A concurrency check keeps its leases in its entry, which expires with the latest of them; an admitted request's
 * leases are named by one id from the store's lease id generator.
 */
public class LocalRateLimitStore implements RateLimitStore, SyncBackend {

	private final Cache<String, Entry> entries;

	/**
	 * Per key, the G-counter entries of the local views that flushed to it (view and window to the total applied), as
	 * the hash beside the key in Redis: kept apart from the key's state, expiring on their own.
	 */
	private final Cache<String, SyncEntries> syncEntries;

	private final LongSupplier nowMicros;

	private final Supplier<String> leaseIds;

	/**
	 * Creates a store on the system clock.
	 * @param maximumEntries the most subjects kept
	 */
	public LocalRateLimitStore(long maximumEntries) {
		this(maximumEntries, Clock.systemUTC());
	}

	/**
	 * Creates a store on the given clock.
	 * @param maximumEntries the most subjects kept
	 * @param clock the clock
	 */
	public LocalRateLimitStore(long maximumEntries, Clock clock) {
		this(maximumEntries, clock, LeaseIds.random());
	}

	/**
	 * Creates a store on the given clock whose leases get their ids from the given generator.
	 * @param maximumEntries the most subjects kept
	 * @param clock the clock
	 * @param leaseIds the lease id generator: unique ids (the same sequence in two stores gives them the same ids)
	 */
	public LocalRateLimitStore(long maximumEntries, Clock clock, Supplier<String> leaseIds) {
		this.leaseIds = leaseIds;
		this.nowMicros = () -> {
			Instant now = clock.instant();
			return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
		};
		this.entries = Caffeine.newBuilder()
			.maximumSize(maximumEntries)
			.ticker(() -> this.nowMicros.getAsLong() * 1_000L)
			.expireAfter(new EntryExpiry())
			.build();
		this.syncEntries = Caffeine.newBuilder()
			.maximumSize(maximumEntries)
			.ticker(() -> this.nowMicros.getAsLong() * 1_000L)
			.expireAfter(new SyncEntriesExpiry())
			.build();
	}

	@Override
	public List<Decision> evaluate(List<RateLimitCheck> checks) {
		return decide(checks, true);
	}

	/**
	 * Returns what {@link #evaluate} would: the same computation on the same locked entries, without storing the new
	 * states. A subject without an entry is computed from no state and gets none (so a peek never evicts another
	 * subject), and entries are looked up without counting as accesses.
	 */
	@Override
	public List<Decision> peek(List<RateLimitCheck> checks) {
		return decide(checks, false);
	}

	private List<Decision> decide(List<RateLimitCheck> checks, boolean commit) {
		String leaseId = (commit && checks.stream().anyMatch(RateLimitCheck::acquiresLease)) ? this.leaseIds.get() : "";
		int n = checks.size();
		String[] keys = new String[n];
		for (int i = 0; i < n; i++) {
			keys[i] = key(checks.get(i).policy(), checks.get(i).subject());
		}
		Integer[] lockOrder = new Integer[n];
		Arrays.setAll(lockOrder, (i) -> i);
		Arrays.sort(lockOrder, Comparator.comparing((Integer i) -> keys[i]));
		while (true) {
			Entry[] locked = new Entry[n];
			int held = 0;
			try {
				boolean current = true;
				for (Integer i : lockOrder) {
					Entry entry = commit ? this.entries.get(keys[i], (k) -> new Entry()) : existingOrDetached(keys[i]);
					entry.lock.lock();
					locked[held++] = entry;
					// An entry evicted or expired before we locked it is no longer the live one: start over.
					current = current && (entry.detached || live(keys[i], commit) == entry);
					if (!current) {
						break;
					}
				}
				// A peek reads absent keys as no state: only if they are still absent now that it holds every lock.
				for (int j = 0; j < held && current; j++) {
					current = !locked[j].detached || live(keys[lockOrder[j]], false) == null;
				}
				if (current) {
					Entry[] byCheck = new Entry[n];
					for (int j = 0; j < n; j++) {
						byCheck[lockOrder[j]] = locked[j];
					}
					return decideLocked(checks, keys, byCheck, commit, leaseId);
				}
			}
			finally {
				for (int j = held - 1; j >= 0; j--) {
					locked[j].lock.unlock();
				}
			}
		}
	}

	private Entry existingOrDetached(String key) {
		Entry entry = live(key, false);
		return (entry != null) ? entry : new Entry(true);
	}

	/** Returns the entry in the cache; a peek ({@code access} false) leaves no trace in its eviction order. */
	private @Nullable Entry live(String key, boolean access) {
		return access ? this.entries.asMap().get(key) : this.entries.policy().getIfPresentQuietly(key);
	}

	/**
	 * Decides under the entries' locks. A request that an enforced check denies, but could admit within that check's
	 * {@code maxWait} (the reservable algorithms only), is admitted with a delay: the longest such wait. Its checks
	 * of reservable algorithms are then decided at the time it proceeds ({@code now + delay}, where each one admits:
	 * the reservation), the others at {@code now}, with their {@code resetAfter} seen from the time it proceeds.
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private List<Decision> decideLocked(List<RateLimitCheck> checks, String[] keys, Entry[] entries, boolean commit,
			String leaseId) {
		long now = this.nowMicros.getAsLong();
		int n = checks.size();
		Outcome<?>[] outcomes = new Outcome<?>[n];
		LimitAlgorithm[] algorithms = new LimitAlgorithm[n];
		long[] reclaimable = new long[n];
		boolean admitted = true;
		long delay = 0;
		for (int i = 0; i < n; i++) {
			RateLimitCheck check = checks.get(i);
			algorithms[i] = Algorithms.of(check, leaseId);
			outcomes[i] = algorithms[i].apply(entries[i].state, now, check.cost());
			if (!check.shadow() && !outcomes[i].allowed()) {
				long retry = outcomes[i].retryAfterMicros();
				if (retry != Outcome.NEVER && retry <= check.maxWaitMicros()) {
					delay = Math.max(delay, retry);
				}
				else {
					admitted = false;
				}
			}
			if (algorithms[i] instanceof Concurrency concurrency) {
				reclaimable[i] = concurrency.reclaimable((Concurrency.State) entries[i].state, now);
			}
		}
		if (admitted && delay > 0) {
			for (int i = 0; i < n; i++) {
				outcomes[i] = (algorithms[i] instanceof Reservable) ? algorithms[i].apply(entries[i].state, now + delay,
						checks.get(i).cost()) : seenLater(outcomes[i], delay);
			}
		}
		List<Decision> decisions = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			RateLimitCheck check = checks.get(i);
			Outcome<?> outcome = outcomes[i];
			if (outcome.allowed() && !admitted) {
				outcome = algorithms[i].apply(entries[i].state, now, 0);
			}
			else if (commit && outcome.allowed() && check.cost() > 0) {
				entries[i].state = outcome.state();
				entries[i].expiresAtMicros = now + ((algorithms[i] instanceof Reservable) ? delay : 0)
						+ outcome.ttlMicros();
				this.entries.asMap().replace(keys[i], entries[i], entries[i]);
			}
			Decision decision = Decision.ofMicros(outcome.allowed(), outcome.limitOr(check.policy().limit()),
					outcome.remaining(),
					outcome.resetAfterMicros(), outcome.retryAfterMicros(), outcome.nextAfterMicros(), now);
			if (admitted && outcome.allowed() && check.acquiresLease()) {
				decision = decision.withLease(commit ? new Lease(check.policy(), check.subject(), leaseId, check.cost())
						: null, reclaimable[i]);
			}
			if (admitted && outcome.allowed() && delay > 0) {
				decision = decision.withDelay(Duration.of(delay, ChronoUnit.MICROS));
			}
			decisions.add(decision);
		}
		return decisions;
	}

	/**
	 * Applies each flush under its entry's lock, one after the other (as {@code sync.lua} does): the units of the view's
	 * entry beyond what the entry applied before (or, for an entry this store no longer holds, beyond what the view says
	 * was acknowledged) are absorbed into the state, which is the reply.
	 */
	@Override
	@SuppressWarnings("unchecked")
	public CompletableFuture<SyncReply> sync(List<SyncFlush> flushes) {
		long now = this.nowMicros.getAsLong();
		List<@Nullable Object> states = new ArrayList<>(flushes.size());
		for (SyncFlush flush : flushes) {
			Syncable<Object> algorithm = (Syncable<Object>) Algorithms.of(flush.policy(), flush.subject());
			String key = key(flush.policy(), flush.subject());
			String field = flush.view() + ':' + flush.window();
			while (true) {
				// a flush that only reads (nothing new to apply) creates no entry, as sync.lua writes nothing for it
				SyncEntries kept = this.syncEntries.getIfPresent(key);
				Long applied = (kept != null) ? kept.totals.get(field) : null;
				long base = (applied != null) ? applied : flush.acknowledged();
				Entry entry = (flush.total() > base) ? this.entries.get(key, (k) -> new Entry()) : live(key, false);
				if (entry == null) {
					states.add(null);
					break;
				}
				entry.lock.lock();
				try {
					if (live(key, false) != entry) {
						continue;
					}
					kept = this.syncEntries.getIfPresent(key);
					applied = (kept != null) ? kept.totals.get(field) : null;
					base = (applied != null) ? applied : flush.acknowledged();
					if (flush.total() > base) {
						entry.state = algorithm.absorb(entry.state, now, flush.total() - base, flush.window());
						long ttl = Math.max(0, algorithm.apply(entry.state, now, 0).resetAfterMicros());
						entry.expiresAtMicros = now + ttl;
						this.entries.asMap().replace(key, entry, entry);
						SyncEntries updated = (kept != null) ? kept : new SyncEntries();
						updated.totals.put(field, flush.total());
						updated.untilMicros = now + Math.max(ttl, syncEntriesTtl(flush.policy()));
						this.syncEntries.put(key, updated);
					}
					states.add(entry.state);
					break;
				}
				finally {
					entry.lock.unlock();
				}
			}
		}
		return CompletableFuture.completedFuture(new SyncReply(now, states));
	}

	/**
	 * Gives back each consumption under its entry's lock, then inspects the entry, one consumption after the other
	 * (as the Lua script does): the reference maths of {@link LimitAlgorithm#refund}. A subject without an entry has
	 * nothing to give back.
	 */
	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		List<Decision> decisions = new ArrayList<>(consumptions.size());
		for (Consumption consumption : consumptions) {
			refundOne(consumption);
			decisions.add(peek(List.of(consumption.check().withCost(0))).get(0));
		}
		return decisions;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private void refundOne(Consumption consumption) {
		String key = key(consumption.policy(), consumption.subject());
		while (true) {
			Entry entry = live(key, false);
			if (entry == null) {
				return;
			}
			entry.lock.lock();
			try {
				if (live(key, false) != entry) {
					// evicted or expired before we locked it: look again
					continue;
				}
				LimitAlgorithm algorithm = Algorithms.of(consumption.policy(), consumption.subject());
				Object refunded = algorithm.refund(entry.state, this.nowMicros.getAsLong(), consumption.atMicros(),
						consumption.cost());
				if (refunded == null) {
					entry.state = null;
					this.entries.asMap().remove(key, entry);
				}
				else if (refunded != entry.state) {
					// the expiry stays: a refund never makes a state matter for longer
					entry.state = refunded;
				}
				return;
			}
			finally {
				entry.lock.unlock();
			}
		}
	}

	/**
	 * Settles each consumption under its entry's lock, then inspects the entry, one settlement after the other (as the
	 * Lua script does): a charge is the reference maths of {@link LimitAlgorithm#charge} (creating the entry when there
	 * is none, and keeping it at least until the state no longer matters: a key in debt until it has recovered), a
	 * refund that of {@link #refund}.
	 */
	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		List<Decision> decisions = new ArrayList<>(settlements.size());
		for (Settlement settlement : settlements) {
			if (settlement.charged() > 0) {
				chargeOne(settlement.consumption(), settlement.charged());
			}
			Consumption refund = settlement.refund();
			if (refund != null) {
				refundOne(refund);
			}
			decisions.add(peek(List.of(settlement.inspection())).get(0));
		}
		return decisions;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private void chargeOne(Consumption consumption, long units) {
		String key = key(consumption.policy(), consumption.subject());
		LimitAlgorithm algorithm = Algorithms.of(consumption.policy(), consumption.subject());
		while (true) {
			Entry entry = this.entries.get(key, (k) -> new Entry());
			entry.lock.lock();
			try {
				if (live(key, false) != entry) {
					continue;
				}
				long now = this.nowMicros.getAsLong();
				Object charged = algorithm.charge(entry.state, now, consumption.atMicros(), units);
				if (charged == null) {
					entry.state = null;
					this.entries.asMap().remove(key, entry);
				}
				else if (charged != entry.state) {
					entry.state = charged;
					long until = now + keepMicros(algorithm, charged, now);
					entry.expiresAtMicros = Math.max(entry.expiresAtMicros, until);
					this.entries.asMap().replace(key, entry, entry);
				}
				else if (entry.expiresAtMicros == Long.MIN_VALUE) {
					// a charge that changed nothing (a window that owes nothing) leaves no new entry behind
					this.entries.asMap().remove(key, entry);
				}
				return;
			}
			finally {
				entry.lock.unlock();
			}
		}
	}

	/**
	 * Returns how long a state must be kept from {@code now}: until its quota is whole again (a warming-up key then
	 * for its warm-up period more, as an admission keeps it).
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	static long keepMicros(LimitAlgorithm algorithm, Object state, long now) {
		if (algorithm instanceof WarmingUp warmingUp) {
			return warmingUp.ttlMicros((WarmingUp.State) state, now);
		}
		return Math.max(0, algorithm.apply(state, now, 0).resetAfterMicros());
	}

	/** Returns an outcome decided at arrival as seen {@code delay} later: its reset that much nearer. */
	private static <S> Outcome<S> seenLater(Outcome<S> outcome, long delay) {
		return new Outcome<>(outcome.allowed(), outcome.remaining(), Math.max(0, outcome.resetAfterMicros() - delay),
				Math.max(0, outcome.nextAfterMicros() - delay), outcome.retryAfterMicros(), outcome.state(),
				outcome.ttlMicros(), outcome.limit());
	}

	/**
	 * Gives back, for each check of a reservable algorithm, its cost ({@link Reservable#giveBack}); the other checks
	 * are left as they are.
	 */
	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public void cancel(List<RateLimitCheck> checks) {
		for (RateLimitCheck check : checks) {
			if (check.cost() == 0 || !(Algorithms.of(check.policy(), check.subject()) instanceof Reservable reservable)) {
				continue;
			}
			String key = key(check.policy(), check.subject());
			while (true) {
				Entry entry = live(key, false);
				if (entry == null) {
					break;
				}
				entry.lock.lock();
				try {
					if (live(key, false) != entry) {
						continue;
					}
					if (entry.state != null) {
						long now = this.nowMicros.getAsLong();
						Object state = reservable.giveBack(entry.state, now, check.cost());
						entry.state = state;
						if (state != null) {
							entry.expiresAtMicros = now + Math.max(0,
									reservable.apply(state, now, 0).resetAfterMicros());
							this.entries.asMap().replace(key, entry, entry);
						}
						else {
							this.entries.asMap().remove(key, entry);
						}
					}
					break;
				}
				finally {
					entry.lock.unlock();
				}
			}
		}
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		return changeLeases(leases, false);
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return changeLeases(leases, true);
	}

	private List<Boolean> changeLeases(List<Lease> leases, boolean renew) {
		List<Boolean> held = new ArrayList<>(leases.size());
		for (Lease lease : leases) {
			held.add(changeLease(lease, renew));
		}
		return held;
	}

	/** Releases or renews one lease under its entry's lock; a lease without an entry is not held. */
	private boolean changeLease(Lease lease, boolean renew) {
		String key = key(lease.policy(), lease.subject());
		while (true) {
			Entry entry = live(key, false);
			if (entry == null) {
				return false;
			}
			entry.lock.lock();
			try {
				if (live(key, false) != entry) {
					// evicted or expired before we locked it: look again
					continue;
				}
				if (!(entry.state instanceof Concurrency.State state)) {
					return false;
				}
				long now = this.nowMicros.getAsLong();
				Concurrency concurrency = (Concurrency) Algorithms.of(lease.policy(), lease.subject(), lease.id());
				Concurrency.Change change = renew ? concurrency.renew(state, now, lease.slots())
						: concurrency.release(state, now, lease.slots());
				if (change.state() != state) {
					entry.state = change.state();
					entry.expiresAtMicros = now + change.ttlMicros();
					if (change.state() != null) {
						this.entries.asMap().replace(key, entry, entry);
					}
					else {
						this.entries.asMap().remove(key, entry);
					}
				}
				return change.held();
			}
			finally {
				entry.lock.unlock();
			}
		}
	}

	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		this.entries.invalidate(key(policy, subject));
		this.syncEntries.invalidate(key(policy, subject));
	}

	/** Returns the number of subjects currently held (an estimate, as Caffeine reports it). */
	public long size() {
		return this.entries.estimatedSize();
	}

	/** Returns whether a state is held for a subject under a policy (for tests), without touching it. */
	boolean holds(RateLimitPolicy policy, String subject) {
		return state(policy, subject) != null;
	}

	/** Returns the state held for a subject under a policy (for tests), without touching it. */
	@Nullable Object state(RateLimitPolicy policy, String subject) {
		Entry entry = live(key(policy, subject), false);
		return (entry != null) ? entry.state : null;
	}

	private static String key(RateLimitPolicy policy, String subject) {
		return policy.name() + ':' + Subjects.safe(subject);
	}

	/** The state of one subject under one policy, guarded by its own lock. */
	/**
	 * How long a key's G-counter entries outlive their last change at least, as {@code sync.lua} keeps them: a full
	 * bucket's drain time (GCRA, token bucket), or two windows.
	 */
	static long syncEntriesTtl(RateLimitPolicy policy) {
		return switch (policy.algorithm()) {
			case GCRA, TOKEN_BUCKET -> Math.max(policy.intervalMicros() * policy.capacity(), policy.intervalMicros());
			default -> 2 * policy.periodMicros();
		};
	}

	/** The G-counter entries kept for one key. */
	private static final class SyncEntries {

		private final Map<String, Long> totals = new HashMap<>();

		private volatile long untilMicros;

	}

	private static final class SyncEntriesExpiry implements Expiry<String, SyncEntries> {

		@Override
		public long expireAfterCreate(String key, SyncEntries entries, long currentTime) {
			return Math.max(0, entries.untilMicros * 1_000L - currentTime);
		}

		@Override
		public long expireAfterUpdate(String key, SyncEntries entries, long currentTime, long currentDuration) {
			return Math.max(0, entries.untilMicros * 1_000L - currentTime);
		}

		@Override
		public long expireAfterRead(String key, SyncEntries entries, long currentTime, long currentDuration) {
			return currentDuration;
		}

	}

	private static final class Entry {

		private final ReentrantLock lock = new ReentrantLock();

		/** Whether this entry stands for an absent key during a peek, outside the cache. */
		private final boolean detached;

		private @Nullable Object state;

		/** Until when the state matters; a new entry lives briefly until its first write. */
		private volatile long expiresAtMicros = Long.MIN_VALUE;

		Entry() {
			this(false);
		}

		Entry(boolean detached) {
			this.detached = detached;
		}

	}

	/** Expires each entry when its algorithm no longer needs its state. */
	private final class EntryExpiry implements Expiry<String, Entry> {

		private static final long NEW_ENTRY_NANOS = TimeUnit.SECONDS.toNanos(60);

		@Override
		public long expireAfterCreate(String key, Entry entry, long currentTime) {
			return NEW_ENTRY_NANOS;
		}

		@Override
		public long expireAfterUpdate(String key, Entry entry, long currentTime, long currentDuration) {
			return remaining(entry, currentTime, currentDuration);
		}

		@Override
		public long expireAfterRead(String key, Entry entry, long currentTime, long currentDuration) {
			return currentDuration;
		}

		private long remaining(Entry entry, long currentTimeNanos, long currentDuration) {
			if (entry.expiresAtMicros == Long.MIN_VALUE) {
				return currentDuration;
			}
			return Math.max(0, entry.expiresAtMicros * 1_000L - currentTimeNanos);
		}

	}

}
