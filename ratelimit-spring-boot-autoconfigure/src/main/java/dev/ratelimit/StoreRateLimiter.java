package dev.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link RateLimiter} over one {@link RateLimitStore}. Checks that name the same policy and subject are merged into
 * one check whose cost is the sum (enforced if any of them is, waiting no longer than the least patient), so a store
 * never sees one key twice in a call.
 */
public class StoreRateLimiter implements RateLimiter {

	private final RateLimitStore store;

	private final RateLimitListener listener;

	public StoreRateLimiter(RateLimitStore store) {
		this(store, RateLimitListener.NONE);
	}

	/**
	 * @param store the store
	 * @param listener told of every verdict (as {@link RateLimitListener.Source#STORE}) and every release of leases
	 */
	public StoreRateLimiter(RateLimitStore store, RateLimitListener listener) {
		this.store = Objects.requireNonNull(store, "store");
		this.listener = Objects.requireNonNull(listener, "listener");
	}

	/** Returns the store. */
	public RateLimitStore store() {
		return this.store;
	}

	@Override
	public Verdict evaluate(List<RateLimitCheck> checks) {
		Verdict verdict = evaluateInStore(checks);
		if (!checks.isEmpty()) {
			this.listener.onVerdict(verdict, RateLimitListener.Source.STORE);
		}
		return verdict;
	}

	private Verdict evaluateInStore(List<RateLimitCheck> checks) {
		if (checks.isEmpty()) {
			return new Verdict(List.of(), List.of());
		}
		if (checks.size() == 1 || distinct(checks)) {
			return new Verdict(checks, this.store.evaluate(checks));
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
					throw new IllegalArgumentException("Two different policies are named '" + check.policy().name() + "'");
				}
				merged.set(position, new RateLimitCheck(previous.policy(), previous.subject(),
						Math.min(RateLimitCheck.MAX_COST, previous.cost() + check.cost()),
						previous.shadow() && check.shadow(), previous.status(), previous.distinctValue(),
						min(previous.maxWait(), check.maxWait())));
				target[i] = position;
			}
		}
		List<Decision> mergedDecisions = this.store.evaluate(merged);
		List<Decision> decisions = new ArrayList<>(checks.size());
		for (int i = 0; i < checks.size(); i++) {
			decisions.add(mergedDecisions.get(target[i]));
		}
		return new Verdict(checks, decisions);
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		if (leases.isEmpty()) {
			return List.of();
		}
		List<Boolean> held = this.store.release(leases);
		this.listener.onRelease(leases, held);
		return held;
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return leases.isEmpty() ? List.of() : this.store.renew(leases);
	}

	/** Refunds in the store, and tells the listener ({@link RateLimitListener#onRefund}). */
	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		if (consumptions.isEmpty()) {
			return List.of();
		}
		List<Decision> decisions = this.store.refund(consumptions);
		this.listener.onRefund(consumptions);
		return decisions;
	}

	/**
	 * Cancels the reservation in the store: see {@link RateLimitStore#cancel}. Only the checks that admitted consumed
	 * anything (a shadow check may have denied), so only they give back.
	 */
	@Override
	public void cancel(Verdict verdict) {
		if (verdict.delay().isZero()) {
			return;
		}
		List<RateLimitCheck> admitting = new ArrayList<>(verdict.checks().size());
		for (int i = 0; i < verdict.checks().size(); i++) {
			if (verdict.decisions().get(i).allowed()) {
				admitting.add(verdict.checks().get(i));
			}
		}
		this.store.cancel(admitting);
	}

	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		this.store.reset(policy, subject);
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
