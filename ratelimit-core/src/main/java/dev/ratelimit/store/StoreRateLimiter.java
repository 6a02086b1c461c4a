package dev.ratelimit.store;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.Futures;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimiter} over one {@link RateLimitStore}. Checks that name the same policy and subject are merged into
 * one check whose cost is the sum (enforced if any of them is, waiting no longer than the least patient), so a store
 * never sees one key twice in a call.
 * <p>
 * The non-blocking forms are the primary path: they merge, call the store's non-blocking form and bound it by the
 * timeout (the store's own {@link RateLimitStore#timeout()} unless one is given), so no thread waits for the store nor
 * for the timeout; the listener is told when the call completes, on the thread that completes it (a Redis client's
 * event loop, or the timeout's thread). The blocking forms do the same work through the store's blocking forms, which
 * for a Redis store wait on those same non-blocking calls, bounded by the same timeout.
 */
public class StoreRateLimiter implements RateLimiter {

	private final RateLimitStore store;

	private final RateLimitListener listener;

	private final @Nullable Duration timeout;

	public StoreRateLimiter(RateLimitStore store) {
		this(store, RateLimitListener.NONE);
	}

	/**
	 * @param store the store
	 * @param listener told of every verdict (as {@link RateLimitListener.Source#STORE}) and every release of leases
	 */
	public StoreRateLimiter(RateLimitStore store, RateLimitListener listener) {
		this(store, listener, store.timeout());
	}

	/**
	 * @param store the store
	 * @param listener told of every verdict (as {@link RateLimitListener.Source#STORE}) and every release of leases
	 * @param timeout how long the non-blocking forms wait for the store before failing with a
	 * {@link RateLimitStoreException} (and cancelling the store's future), or {@code null} for no timeout
	 */
	public StoreRateLimiter(RateLimitStore store, RateLimitListener listener, @Nullable Duration timeout) {
		this.store = Objects.requireNonNull(store, "store");
		this.listener = Objects.requireNonNull(listener, "listener");
		this.timeout = timeout;
	}

	/** Returns the store. */
	public RateLimitStore store() {
		return this.store;
	}

	@Override
	public Verdict evaluate(List<RateLimitCheck> checks) {
		if (checks.isEmpty()) {
			return new Verdict(List.of(), List.of());
		}
		Merged merged = Merged.of(checks);
		return told(merged.verdict(this.store.evaluate(merged.checks())));
	}

	/**
	 * Evaluates without blocking: merges the checks, then calls {@link RateLimitStore#evaluateAsync} bounded by the
	 * timeout. Cancelling the result cancels the store's call.
	 */
	@Override
	public CompletableFuture<Verdict> evaluateAsync(List<RateLimitCheck> checks) {
		if (checks.isEmpty()) {
			return CompletableFuture.completedFuture(new Verdict(List.of(), List.of()));
		}
		Merged merged;
		try {
			merged = Merged.of(checks);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return inStore(() -> this.store.evaluateAsync(merged.checks()),
				(decisions) -> told(merged.verdict(decisions)));
	}

	private Verdict told(Verdict verdict) {
		this.listener.onVerdict(verdict, RateLimitListener.Source.STORE);
		return verdict;
	}

	/**
	 * Calls the store without blocking, bounded by the timeout, and maps its answer; cancelling the result cancels the
	 * store's call.
	 */
	private <T, R> CompletableFuture<R> inStore(Supplier<CompletableFuture<T>> call, Function<T, R> then) {
		CompletableFuture<T> bounded = Futures.withTimeout(Futures.start(call), this.timeout);
		return Futures.cancelling(bounded.thenApply(then), bounded);
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		if (leases.isEmpty()) {
			return List.of();
		}
		return released(leases, this.store.release(leases));
	}

	@Override
	public CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
		if (leases.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		return inStore(() -> this.store.releaseAsync(leases), (held) -> released(leases, held));
	}

	private List<Boolean> released(List<Lease> leases, List<Boolean> held) {
		this.listener.onRelease(leases, held);
		return held;
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return leases.isEmpty() ? List.of() : this.store.renew(leases);
	}

	@Override
	public CompletableFuture<List<Boolean>> renewAsync(List<Lease> leases) {
		if (leases.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		return inStore(() -> this.store.renewAsync(leases), Function.identity());
	}

	/** Refunds in the store, and tells the listener ({@link RateLimitListener#onRefund}). */
	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		if (consumptions.isEmpty()) {
			return List.of();
		}
		return refunded(consumptions, this.store.refund(consumptions));
	}

	@Override
	public CompletableFuture<List<Decision>> refundAsync(List<Consumption> consumptions) {
		if (consumptions.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		return inStore(() -> this.store.refundAsync(consumptions), (decisions) -> refunded(consumptions, decisions));
	}

	private List<Decision> refunded(List<Consumption> consumptions, List<Decision> decisions) {
		this.listener.onRefund(consumptions);
		return decisions;
	}

	/** Settles in the store, and tells the listener ({@link RateLimitListener#onSettle}). */
	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		if (settlements.isEmpty()) {
			return List.of();
		}
		return settled(settlements, this.store.settle(settlements));
	}

	@Override
	public CompletableFuture<List<Decision>> settleAsync(List<Settlement> settlements) {
		if (settlements.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		return inStore(() -> this.store.settleAsync(settlements), (decisions) -> settled(settlements, decisions));
	}

	private List<Decision> settled(List<Settlement> settlements, List<Decision> decisions) {
		this.listener.onSettle(settlements);
		return decisions;
	}

	/**
	 * Cancels the reservation in the store: see {@link RateLimitStore#cancel}. Only the checks that admitted consumed
	 * anything (a shadow check may have denied), so only they give back.
	 */
	@Override
	public void cancel(Verdict verdict) {
		if (!verdict.delay().isZero()) {
			this.store.cancel(admitting(verdict));
		}
	}

	@Override
	public CompletableFuture<Void> cancelAsync(Verdict verdict) {
		if (verdict.delay().isZero()) {
			return CompletableFuture.completedFuture(null);
		}
		List<RateLimitCheck> admitting = admitting(verdict);
		return inStore(() -> this.store.cancelAsync(admitting), Function.identity());
	}

	private static List<RateLimitCheck> admitting(Verdict verdict) {
		List<RateLimitCheck> admitting = new ArrayList<>(verdict.checks().size());
		for (int i = 0; i < verdict.checks().size(); i++) {
			if (verdict.decisions().get(i).allowed()) {
				admitting.add(verdict.checks().get(i));
			}
		}
		return admitting;
	}

	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		this.store.reset(policy, subject);
	}

	/**
	 * The checks of a request as the store sees them: duplicates of a (policy, subject) merged, and where each
	 * original check finds its decision.
	 *
	 * @param checks the checks to send to the store
	 * @param target for each original check, the index of its merged check, or {@code null} when nothing was merged
	 * @param original the original checks
	 */
	private record Merged(List<RateLimitCheck> checks, int @Nullable [] target, List<RateLimitCheck> original) {

		static Merged of(List<RateLimitCheck> checks) {
			if (checks.size() == 1 || distinct(checks)) {
				return new Merged(checks, null, checks);
			}
			Map<String, Integer> positions = new LinkedHashMap<>();
			List<RateLimitCheck> merged = new ArrayList<>();
			int[] target = new int[checks.size()];
			for (int i = 0; i < checks.size(); i++) {
				RateLimitCheck check = checks.get(i);
				String id = check.policy().name() + '\u0000' + check.subject();
				Integer position = positions.get(id);
				if (position == null) {
					positions.put(id, merged.size());
					target[i] = merged.size();
					merged.add(check);
				}
				else {
					RateLimitCheck previous = merged.get(position);
					if (!previous.policy().equals(check.policy())) {
						throw new IllegalArgumentException(
								"Two different policies are named '" + check.policy().name() + "'");
					}
					merged.set(position, new RateLimitCheck(previous.policy(), previous.subject(),
							Math.min(RateLimitCheck.MAX_COST, previous.cost() + check.cost()),
							previous.shadow() && check.shadow(), previous.status(), previous.distinctValue(),
							min(previous.maxWait(), check.maxWait())));
					target[i] = position;
				}
			}
			return new Merged(merged, target, checks);
		}

		/** Returns the verdict of the original checks from the store's decisions of the merged ones. */
		Verdict verdict(List<Decision> mergedDecisions) {
			int[] target = this.target;
			if (target == null) {
				return new Verdict(this.original, mergedDecisions);
			}
			List<Decision> decisions = new ArrayList<>(target.length);
			for (int index : target) {
				decisions.add(mergedDecisions.get(index));
			}
			return new Verdict(this.original, decisions);
		}

	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	private static boolean distinct(List<RateLimitCheck> checks) {
		for (int i = 0; i < checks.size(); i++) {
			for (int j = i + 1; j < checks.size(); j++) {
				if (checks.get(i).policy().name().equals(checks.get(j).policy().name())
						&& checks.get(i).subject().equals(checks.get(j).subject())) {
					return false;
				}
			}
		}
		return true;
	}

}
