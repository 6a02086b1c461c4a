package dev.ratelimit.store;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.lease.NoLeases;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Where rate limit state lives. Implementations must honour the store contract:
 * <ul>
 * <li>{@link #evaluate} is atomic over all checks: either every enforced check allows and all allowing checks
 * consume their cost, or the request is denied and <strong>nothing is consumed in any check</strong>;</li>
 * <li>the decision of a check that would have allowed a denied request reports its state without this request
 * (as if inspected with cost 0);</li>
 * <li>the checks passed to one call have distinct (policy name, subject) pairs ({@link RateLimiter} merges
 * duplicates);</li>
 * <li>{@link #peek} returns exactly the decisions that {@link #evaluate} would return at that moment, and writes
 * nothing: no quota consumed, no state created, no expiry changed (a peek acquires no lease, so its decisions carry
 * none);</li>
 * <li>a {@link Algorithm#CONCURRENCY concurrency} check that admits a request of cost &gt; 0 acquires a {@link Lease}
 * in the same atomic step as the other checks consume (a denied request holds no lease, and a request denied by a
 * concurrency check consumes nothing elsewhere); expired leases are reclaimed by the next admission. {@link #release}
 * and {@link #renew} act on leases one by one;</li>
 * <li>{@link #refund} gives back what an admitted check consumed, as far as it still counts, and never more: see
 * there for what that means per algorithm;</li>
 * <li>{@link #settle} charges (unconditionally, into debt if need be) or gives back the difference between what a
 * request reserved and what it cost: see there.</li>
 * <li>a check with a {@link RateLimitCheck#maxWait() maxWait} under an algorithm that
 * {@link Algorithm#supportsReservations() supports reservations} does not deny a request that it could admit within
 * {@code maxWait}: the request is admitted with a {@link Decision#delay() delay}, the longest such wait of its checks
 * (all or nothing as ever: it reserves in every check or, when another check denies, in none). Its checks of
 * reservable algorithms are decided as at the time it proceeds (now + delay), which takes their slots at once; the
 * others as now, with their {@code resetAfter} seen from the time it proceeds. {@link #cancel} gives a reservation
 * back.</li>
 * </ul>
 * The contract is verified by one shared test suite run against every implementation.
 */
public interface RateLimitStore {

	/**
	 * Evaluates all checks of one request atomically.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check, in order
	 */
	List<Decision> evaluate(List<RateLimitCheck> checks);

	/**
	 * Returns the decisions that {@link #evaluate} would return for the checks at this moment (the same verdict, and
	 * for an admitted request the numbers after its consumption), without changing anything: read-only, for
	 * operators' views and for asking what a request of some cost would get.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check, in order
	 */
	List<Decision> peek(List<RateLimitCheck> checks);

	/**
	 * Releases leases: each stops counting at once. Idempotent: a lease that is no longer held (released before,
	 * expired, reclaimed, or never granted by this store) is left as it is and answers {@code false}.
	 * <p>
	 * The default suits a store that grants no leases: it fails for any lease.
	 * @param leases the leases
	 * @return for each lease, whether it was held until this call
	 */
	default List<Boolean> release(List<Lease> leases) {
		return NoLeases.operate(this, leases);
	}

	/**
	 * Renews leases: each one still held expires a whole lease timeout from now (never earlier than it would have).
	 * A lease that is no longer held is not taken again (its slots may be someone else's by now) and answers
	 * {@code false}.
	 * <p>
	 * The default suits a store that grants no leases: it fails for any lease.
	 * @param leases the leases
	 * @return for each lease, whether it is held and renewed
	 */
	default List<Boolean> renew(List<Lease> leases) {
		return NoLeases.operate(this, leases);
	}

	/**
	 * Gives back what admitted checks consumed ({@link Verdict#consumptions()}), e.g. because the outcome of the
	 * request is one its rule does not count. Each consumption is given back as far as it still counts, at the time of
	 * this call:
	 * <ul>
	 * <li>GCRA: the theoretical arrival time moves back by {@code cost} emission intervals, but not before now;</li>
	 * <li>token bucket: {@code cost} tokens come back, at most up to the capacity (the "full at" time moves back by
	 * {@code cost} intervals, not before now);</li>
	 * <li>leaky bucket: the level drops by {@code cost}, not below empty;</li>
	 * <li>fixed window: the count drops by {@code cost} (not below 0) if the state still counts the window the request
	 * was admitted in; a later window owes nothing;</li>
	 * <li>sliding window log: up to {@code cost} entries of the admission's time are removed;</li>
	 * <li>sliding window counter: the count of the window the request was admitted in drops by {@code cost}, whether it
	 * is still the current window or has become the previous one.</li>
	 * </ul>
	 * A subject without state has nothing to give back. Refunding the same consumption twice gives back twice (within
	 * those bounds): call it once per consumption.
	 * <p>
	 * The default fails: a store that keeps no state to give back cannot refund.
	 * @param consumptions what the checks consumed
	 * @return for each consumption, its check's state after the refund (as inspected with cost 0)
	 */
	default List<Decision> refund(List<Consumption> consumptions) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot refund");
	}

	/**
	 * Settles requests whose cost is known only after they ran: each reserved its estimate ({@code consumption.cost()})
	 * when it was admitted, and now counts its {@link Settlement#actualCost() actual cost} instead. Each settlement, one
	 * after the other, at the time of this call:
	 * <ul>
	 * <li>charges {@code actualCost - cost} more when that is positive, <strong>unconditionally</strong> (no limit
	 * check: the work is done), so the quota may go below zero: <em>debt</em>. A check in debt denies every request,
	 * even an inspection (cost 0) reports {@code allowed = false} and {@code remaining = 0}, until it has recovered,
	 * its {@code retryAfter} being the time until then; {@code resetAfter} covers the whole recovery, and the store
	 * keeps the state at least that long (a key in debt never expires before it has recovered). Per algorithm:
	 * <ul>
	 * <li>GCRA: the theoretical arrival time moves {@code extra} emission intervals later (from now at the earliest),
	 * past the tolerance without a cap;</li>
	 * <li>token bucket: {@code extra} tokens are taken, below zero if need be (the "full at" time moves {@code extra}
	 * intervals later, from now at the earliest); leaky bucket likewise, above its capacity;</li>
	 * <li>warm-up variants: as their base algorithm, at the interval in force at the key's warmth (a cold key is
	 * charged as a cold one, and stays as warm as it was);</li>
	 * <li>fixed window and calendar window: the count of the window the request was admitted in grows by
	 * {@code extra}, beyond the limit if need be, if that window is still the current one; a later window owes
	 * nothing (the debt of a window is paid when it ends);</li>
	 * <li>sliding window counter: the count of the window the request was admitted in grows by {@code extra}, whether
	 * it is still the current window or has become the previous one (where it weighs less as it slides out); a window
	 * older than that owes nothing;</li>
	 * <li>sliding window log: not settled ({@link Settlement} refuses it).</li>
	 * </ul>
	 * A subject without state is charged from an empty state (the charge creates it);</li>
	 * <li>gives back {@code cost - actualCost} when that is positive, exactly as {@link #refund} gives back a
	 * consumption of that many units counted at {@code consumption.at()} (a subject without state has nothing to give
	 * back);</li>
	 * <li>changes nothing when they are equal.</li>
	 * </ul>
	 * Settling the same consumption twice charges or gives back twice: call it once per consumption. A Redis store
	 * settles a batch in one atomic script call on Redis's clock (in a Cluster, one per hash slot).
	 * <p>
	 * The default fails: a store that keeps no state cannot settle.
	 * @param settlements the settlements
	 * @return for each settlement, its check's state after it (as inspected with cost 0)
	 */
	default List<Decision> settle(List<Settlement> settlements) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot settle");
	}

	/**
	 * Cancels the reservation of a request admitted with a {@link Decision#delay() delay} that will not proceed (its
	 * caller went away): each check of an algorithm that {@link Algorithm#supportsReservations() supports
	 * reservations} gives back its cost, moving the subject's state back by as many intervals (so the next request
	 * to reserve gets a slot that much earlier; requests already waiting keep theirs). Checks of other algorithms are
	 * left as they are: a window counted the request at its arrival, and leases are released with
	 * {@link #release}. Checks may repeat a (policy, subject) pair.
	 * <p>
	 * The default suits a store whose checks never reserve: it fails.
	 * @param checks the request's checks, with the costs they were admitted with
	 */
	default void cancel(List<RateLimitCheck> checks) {
		throw new UnsupportedOperationException(getClass().getName() + " does not support reservations");
	}

	/**
	 * Evaluates all checks of one request without blocking the caller: the primary path of a store that talks to a
	 * server. Same contract as {@link #evaluate}.
	 * <p>
	 * The default runs {@link #evaluate} on the calling thread (right for an in-memory store).
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check, in order, or a future failed with the store's exception
	 */
	default CompletableFuture<List<Decision>> evaluateAsync(List<RateLimitCheck> checks) {
		return now(() -> evaluate(checks));
	}

	/**
	 * {@link #peek} without blocking the caller. The default runs {@link #peek} on the calling thread.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check, in order
	 */
	default CompletableFuture<List<Decision>> peekAsync(List<RateLimitCheck> checks) {
		return now(() -> peek(checks));
	}

	/**
	 * {@link #release} without blocking the caller. The default runs {@link #release} on the calling thread.
	 * @param leases the leases
	 * @return for each lease, whether it was held until this call
	 */
	default CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
		return now(() -> release(leases));
	}

	/**
	 * {@link #renew} without blocking the caller. The default runs {@link #renew} on the calling thread.
	 * @param leases the leases
	 * @return for each lease, whether it is held and renewed
	 */
	default CompletableFuture<List<Boolean>> renewAsync(List<Lease> leases) {
		return now(() -> renew(leases));
	}

	/**
	 * {@link #refund} without blocking the caller. The default runs {@link #refund} on the calling thread.
	 * @param consumptions what the checks consumed
	 * @return for each consumption, its check's state after the refund
	 */
	default CompletableFuture<List<Decision>> refundAsync(List<Consumption> consumptions) {
		return now(() -> refund(consumptions));
	}

	/**
	 * {@link #settle} without blocking the caller. The default runs {@link #settle} on the calling thread.
	 * @param settlements the settlements
	 * @return for each settlement, its check's state after it
	 */
	default CompletableFuture<List<Decision>> settleAsync(List<Settlement> settlements) {
		return now(() -> settle(settlements));
	}

	/**
	 * {@link #cancel} without blocking the caller. The default runs {@link #cancel} on the calling thread.
	 * @param checks the request's checks, with the costs they were admitted with
	 * @return completed when the reservation is given back
	 */
	default CompletableFuture<Void> cancelAsync(List<RateLimitCheck> checks) {
		return now(() -> {
			cancel(checks);
			return null;
		});
	}

	/**
	 * Returns how long a caller waits for this store at most: the bound of its blocking forms, and the timeout that
	 * the limiters apply to its non-blocking forms (they give up a call that is not answered by then, cancelling its
	 * future).
	 * <p>
	 * The default is {@code null}: no timeout, right for a store that answers on the calling thread.
	 * @return the timeout, or {@code null} for none
	 */
	default @Nullable Duration timeout() {
		return null;
	}

	/**
	 * Returns the nodes this store's keys live on when they fail independently (the masters of a Redis Cluster), so
	 * that a limiter can isolate the failure of one of them.
	 * <p>
	 * The default is {@code null}: one server, which is available or not as a whole.
	 * @return the nodes, or {@code null}
	 */
	default @Nullable StoreNodes nodes() {
		return null;
	}

	/**
	 * Runs a blocking operation on the calling thread and returns its result (or its runtime exception) as a future.
	 * @param operation the operation
	 * @param <T> the result type
	 * @return the completed future
	 */
	static <T> CompletableFuture<T> now(Supplier<T> operation) {
		try {
			return CompletableFuture.completedFuture(operation.get());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Forgets the state of one subject under one policy, restoring its full quota.
	 * @param policy the policy
	 * @param subject the subject
	 */
	void reset(RateLimitPolicy policy, String subject);

}
