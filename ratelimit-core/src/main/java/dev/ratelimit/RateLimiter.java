package dev.ratelimit;

import dev.ratelimit.lease.Lease;
import dev.ratelimit.lease.NoLeases;
import dev.ratelimit.store.RateLimitStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * Decides whether a request may proceed. All checks of one request are evaluated in one atomic call; see
 * {@link RateLimitStore} for the contract.
 * <p>
 * Checks with a {@link RateLimitCheck#maxWait() maxWait} may reserve a later slot instead of being denied: the verdict
 * then admits the request with a {@link Verdict#delay() delay}, and the caller must wait that long before it proceeds
 * (or {@link #cancel} the reservation). The {@code acquire} methods do the waiting: blocking, or with a
 * {@link CompletableFuture} that completes at the slot.
 */
public interface RateLimiter {

	/**
	 * Evaluates all checks of one request.
	 * @param checks the checks (a policy and subject may appear more than once; their costs are added)
	 * @return the verdict
	 */
	Verdict evaluate(List<RateLimitCheck> checks);

	/**
	 * Evaluates all checks of one request without blocking the caller: see {@link #evaluate}. The limiters of this
	 * project over a Redis store are non-blocking on this path (no thread waits for Redis, nor for the timeout).
	 * <p>
	 * The default runs {@link #evaluate} on the calling thread.
	 * @param checks the checks (a policy and subject may appear more than once; their costs are added)
	 * @return the verdict, or a future failed with the limiter's exception
	 */
	default CompletableFuture<Verdict> evaluateAsync(List<RateLimitCheck> checks) {
		return RateLimitStore.now(() -> evaluate(checks));
	}

	/**
	 * {@link #release} without blocking the caller. The default runs {@link #release} on the calling thread.
	 * @param leases the leases
	 * @return for each lease, whether it was held until this call
	 */
	default CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
		return RateLimitStore.now(() -> release(leases));
	}

	/**
	 * {@link #renew} without blocking the caller. The default runs {@link #renew} on the calling thread.
	 * @param leases the leases
	 * @return for each lease, whether it is held and renewed
	 */
	default CompletableFuture<List<Boolean>> renewAsync(List<Lease> leases) {
		return RateLimitStore.now(() -> renew(leases));
	}

	/**
	 * {@link #refund} without blocking the caller. The default runs {@link #refund} on the calling thread.
	 * @param consumptions what the checks consumed
	 * @return for each consumption, its check's state after the refund
	 */
	default CompletableFuture<List<Decision>> refundAsync(List<Consumption> consumptions) {
		return RateLimitStore.now(() -> refund(consumptions));
	}

	/**
	 * {@link #settle} without blocking the caller. The default runs {@link #settle} on the calling thread.
	 * @param settlements the settlements
	 * @return for each settlement, its check's state after it
	 */
	default CompletableFuture<List<Decision>> settleAsync(List<Settlement> settlements) {
		return RateLimitStore.now(() -> settle(settlements));
	}

	/** Evaluates a single check. */
	default Verdict evaluate(RateLimitCheck check) {
		return evaluate(List.of(check));
	}

	/**
	 * Releases the leases of a request that ended ({@link Verdict#leases()}); see {@link RateLimitStore#release}.
	 * Call it once however the request ends (completed, failed, timed out); a second call is harmless.
	 * <p>
	 * The default suits a limiter that grants no leases: it fails for any lease.
	 * @param leases the leases
	 * @return for each lease, whether it was held until this call ({@code false}: it had expired or was released)
	 */
	default List<Boolean> release(List<Lease> leases) {
		return NoLeases.operate(this, leases);
	}

	/**
	 * Renews the leases of a request that runs longer than their lease timeout; see {@link RateLimitStore#renew}.
	 * <p>
	 * The default suits a limiter that grants no leases: it fails for any lease.
	 * @param leases the leases
	 * @return for each lease, whether it is held and renewed
	 */
	default List<Boolean> renew(List<Lease> leases) {
		return NoLeases.operate(this, leases);
	}

	/**
	 * Gives back what admitted checks consumed ({@link Verdict#consumptions()}); see {@link RateLimitStore#refund}
	 * for what that means per algorithm. Call it once per consumption, e.g. when the request ended with an outcome its
	 * rule does not count ({@code count-when}).
	 * <p>
	 * The default fails: a limiter that keeps no state cannot refund.
	 * @param consumptions what the checks consumed
	 * @return for each consumption, its check's state after the refund
	 */
	default List<Decision> refund(List<Consumption> consumptions) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot refund");
	}

	/**
	 * Settles requests whose cost is known only after they ran: each admitted check reserved its estimate
	 * ({@link Verdict#consumptions()}), and is charged the difference to its actual cost (unconditionally: the quota
	 * may go into debt, and the next requests are then denied until it has recovered) or given back the part it did not
	 * use; see {@link RateLimitStore#settle}. Call it once per consumption, when the request's cost is known.
	 * <p>
	 * The default fails: a limiter that keeps no state cannot settle.
	 * @param settlements the settlements
	 * @return for each settlement, its check's state after it (as inspected with cost 0)
	 */
	default List<Decision> settle(List<Settlement> settlements) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot settle");
	}

	/**
	 * Cancels the reservation of a request admitted with a {@link Verdict#delay() delay} that will not proceed: see
	 * {@link RateLimitStore#cancel}. Does nothing for a verdict without a delay.
	 * <p>
	 * The default suits a limiter whose checks never reserve: it fails for a verdict with a delay.
	 * @param verdict the verdict of the request
	 */
	default void cancel(Verdict verdict) {
		if (!verdict.delay().isZero()) {
			throw new UnsupportedOperationException(getClass().getName() + " does not support reservations");
		}
	}

	/**
	 * {@link #cancel} without blocking the caller. The default runs {@link #cancel} on the calling thread.
	 * @param verdict the verdict of the request
	 * @return completed when the reservation is given back
	 */
	default CompletableFuture<Void> cancelAsync(Verdict verdict) {
		return RateLimitStore.now(() -> {
			cancel(verdict);
			return null;
		});
	}

	/**
	 * Evaluates the checks and, when the request is admitted with a {@link Verdict#delay() delay}, blocks the calling
	 * thread until its reserved slot.
	 * @param checks the checks, with the {@link RateLimitCheck#maxWait() maxWait} each accepts
	 * @return the verdict: when allowed, the slot has come
	 * @throws CancellationException when the thread is interrupted while it waits: the reservation is cancelled and
	 * the thread's interrupt status kept
	 */
	default Verdict acquire(List<RateLimitCheck> checks) {
		return awaitSlot(evaluate(checks));
	}

	/**
	 * Blocks the calling thread until the slot of a verdict that this limiter returned: for a {@link Verdict#delay()
	 * delay} (at once without one).
	 * @param verdict the verdict
	 * @return the verdict, once its slot has come
	 * @throws CancellationException when the thread is interrupted while it waits: the reservation is cancelled and
	 * the thread's interrupt status kept
	 */
	default Verdict awaitSlot(Verdict verdict) {
		return DelayedAdmission.await(this, verdict);
	}

	/**
	 * Returns whether {@code cost} units for {@code subject} under {@code policy} are admitted within
	 * {@code maxWait}, blocking until the reserved slot when they are admitted later (GCRA, token bucket and leaky
	 * bucket reserve; other algorithms need a zero {@code maxWait}).
	 * @param policy the policy
	 * @param subject the subject
	 * @param cost the units
	 * @param maxWait the longest wait accepted; zero for an answer at once
	 * @return {@code true} when admitted and its slot has come, {@code false} when denied (or interrupted while
	 * waiting: the reservation is then cancelled and the interrupt status kept)
	 */
	default boolean acquire(RateLimitPolicy policy, String subject, long cost, Duration maxWait) {
		try {
			return acquire(List.of(new RateLimitCheck(policy, subject, cost, false, maxWait))).allowed();
		}
		catch (CancellationException ex) {
			return false;
		}
	}

	/**
	 * Evaluates the checks with {@link #evaluateAsync} and returns a future of the verdict that completes at the
	 * request's slot: no thread waits, neither for the store nor for the slot. Cancelling the future before then
	 * cancels the evaluation, or the reservation once it is made.
	 * @param checks the checks, with the {@link RateLimitCheck#maxWait() maxWait} each accepts
	 * @return the verdict, completed as soon as it is known when it has no delay (or failed when the evaluation
	 * fails)
	 */
	default CompletableFuture<Verdict> acquireAsync(List<RateLimitCheck> checks) {
		return DelayedAdmission.afterEvaluation(this, Futures.start(() -> evaluateAsync(checks)), (verdict) -> verdict);
	}

	/**
	 * Returns a future of whether {@code cost} units are admitted within {@code maxWait}, completed at the reserved
	 * slot without holding a thread while it waits, nor while the store decides; see
	 * {@link #acquire(RateLimitPolicy, String, long, Duration)}. Cancelling the future before then cancels the
	 * evaluation, or the reservation once it is made.
	 * @param policy the policy
	 * @param subject the subject
	 * @param cost the units
	 * @param maxWait the longest wait accepted
	 * @return whether admitted, completed at the slot
	 */
	default CompletableFuture<Boolean> acquireAsync(RateLimitPolicy policy, String subject, long cost,
			Duration maxWait) {
		return DelayedAdmission.afterEvaluation(this,
				Futures.start(() -> evaluateAsync(List.of(new RateLimitCheck(policy, subject, cost, false, maxWait)))),
				Verdict::allowed);
	}

	/**
	 * Forgets a subject's state under a policy everywhere this limiter keeps it, restoring its full quota.
	 * @param policy the policy
	 * @param subject the subject
	 */
	void reset(RateLimitPolicy policy, String subject);

	/** Returns whether one unit for {@code subject} under {@code policy} is admitted, consuming it if so. */
	default boolean tryAcquire(RateLimitPolicy policy, String subject) {
		return evaluate(RateLimitCheck.of(policy, subject)).allowed();
	}

}
