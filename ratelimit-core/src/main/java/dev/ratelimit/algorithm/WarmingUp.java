package dev.ratelimit.algorithm;

import dev.ratelimit.Algorithm;
import org.jspecify.annotations.Nullable;

/**
 * Warm-up (cold start) for {@link Gcra} and {@link TokenBucket}: a key that was not used for the warm-up period
 * {@code W} is cold and admits at {@code limit / F} ({@code F} the cold factor), with a burst of {@code capacity / F}
 * (at least 1); the longer it is used without a pause of {@code W}, the faster it admits, linearly in the rate, up to
 * the full rate after {@code W} of use.
 * <p>
 * Warmth is the time since the key was last cold, {@code e = min(now - since, W)}, not Guava's stored permits: a client
 * polling just below the cold rate keeps the key in use, so it warms up in {@code W} (Guava #3552, where idle time
 * refills the stored permits as fast as the poller takes them, so it stays cold for ever). At warmth {@code e}, with
 * {@code g = (W + (F - 1) e) / (F W)} (from {@code 1/F} to 1), the key is the base algorithm with
 * <ul>
 * <li>interval = {@code floor(I F W / (W + (F - 1) e))} (the rate {@code g / I});</li>
 * <li>capacity = {@code max(1, floor(C (W + (F - 1) e) / (F W)))};</li>
 * <li>limit (what the headers state) = {@code max(1, floor(L (W + (F - 1) e) / (F W)))};</li>
 * </ul>
 * and exactly the base algorithm once {@code e >= W}. The maths is in IEEE doubles, in this order, as in
 * {@code ratelimit.lua}, so that both give the same integers. No warm-up ({@code W = 0}) is the base algorithm, never
 * an unlimited one, and a tiny {@code W} is warm after that tiny time: the rate is always between {@code limit / F}
 * and {@code limit} (Guava #2730, where a zero warm-up divided by zero and admitted everything).
 * <p>
 * The state is the base algorithm's time {@code at} (the GCRA's TAT, the bucket's "full at") and {@code since}; a key
 * is cold when it has none, or when {@code now - at >= W}: its quota has been whole again for the warm-up period.
 * Every write keeps the key until then ({@code TTL = base TTL + W}), so an expired key is a cold one.
 *
 * @param base {@link Algorithm#GCRA} or {@link Algorithm#TOKEN_BUCKET}
 * @param intervalMicros the base interval, {@code period / limit}
 * @param capacity the base capacity (burst)
 * @param limit the policy's limit, scaled for the headers
 * @param warmUpMicros the warm-up period {@code W}, at least 1
 * @param coldFactor {@code F}, at least 1
 */
public record WarmingUp(Algorithm base, long intervalMicros, long capacity, long limit, long warmUpMicros,
		double coldFactor) implements LimitAlgorithm<WarmingUp.State> {

	public WarmingUp {
		if (base != Algorithm.GCRA && base != Algorithm.TOKEN_BUCKET) {
			throw new IllegalArgumentException("warm-up applies to gcra and token-bucket only");
		}
		if (warmUpMicros < 1 || !(coldFactor >= 1)) {
			throw new IllegalArgumentException("warm-up must be at least 1us and the cold factor at least 1");
		}
	}

	/**
	 * @param at the base algorithm's time: the GCRA's theoretical arrival time, the token bucket's "full at"
	 * @param since when the key was last cold, in microseconds
	 */
	public record State(long at, long since) {
	}

	/**
	 * The base algorithm's parameters at one warmth.
	 *
	 * @param intervalMicros the interval
	 * @param capacity the capacity
	 * @param limit the limit the headers state
	 */
	public record Rate(long intervalMicros, long capacity, long limit) {
	}

	/**
	 * Returns the rate of a key last cold at {@code since}, at {@code now}.
	 * @param since when the key was last cold
	 * @param now the time
	 * @return its interval, capacity and limit
	 */
	public Rate rate(long since, long now) {
		long elapsed = Math.max(0, now - since);
		if (elapsed >= this.warmUpMicros) {
			return new Rate(this.intervalMicros, this.capacity, this.limit);
		}
		double w = this.warmUpMicros;
		double f = this.coldFactor;
		double span = w + (f - 1) * elapsed;
		long interval = (long) Math.floor(this.intervalMicros * f * w / span);
		long capacity = Math.max(1, (long) Math.floor(this.capacity * span / (f * w)));
		long limit = Math.max(1, (long) Math.floor(this.limit * span / (f * w)));
		return new Rate(interval, capacity, limit);
	}

	/** Returns whether a state (or none) is cold at {@code now}. */
	private boolean cold(@Nullable State state, long now) {
		return state == null || now - state.at() >= this.warmUpMicros;
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		boolean cold = cold(state, now);
		long since = cold ? now : state.since();
		Rate rate = rate(since, now);
		Outcome<?> outcome;
		long at;
		if (this.base == Algorithm.GCRA) {
			Outcome<Gcra.State> gcra = new Gcra(rate.intervalMicros(), rate.capacity())
				.apply(cold ? null : new Gcra.State(state.at()), now, cost);
			outcome = gcra;
			at = (gcra.state() != null) ? gcra.state().tat() : now;
		}
		else {
			Outcome<TokenBucket.State> bucket = new TokenBucket(rate.intervalMicros(), rate.capacity())
				.apply(cold ? null : new TokenBucket.State(state.at()), now, cost);
			outcome = bucket;
			at = (bucket.state() != null) ? bucket.state().fullAt() : now;
		}
		State next = outcome.allowed() ? new State(at, since) : state;
		long ttl = outcome.allowed() ? outcome.ttlMicros() + this.warmUpMicros : 0;
		return new Outcome<>(outcome.allowed(), outcome.remaining(), outcome.resetAfterMicros(),
				outcome.nextAfterMicros(), outcome.retryAfterMicros(), next, ttl, rate.limit());
	}

	/**
	 * Charges as the base algorithm at the key's warmth: {@code at} (from now at the earliest) moves {@code units}
	 * intervals of the rate in force now later; a cold key becomes warm from now, as an admission would make it.
	 */
	@Override
	public State charge(@Nullable State state, long now, long admittedAt, long units) {
		boolean cold = cold(state, now);
		long since = cold ? now : state.since();
		long at = cold ? now : Math.max(state.at(), now);
		return new State(at + units * rate(since, now).intervalMicros(), since);
	}

	/**
	 * Returns how long a state must be kept: until its quota is whole again and then the warm-up period (a key that
	 * expired is a cold one).
	 * @param state the state
	 * @param now the current time in microseconds
	 * @return the time to keep it, in microseconds
	 */
	public long ttlMicros(State state, long now) {
		return Math.max(0, state.at() - now) + this.warmUpMicros;
	}

	/**
	 * Moves {@code at} back by {@code cost} base intervals, but not before now (which would make a key cold sooner);
	 * the key keeps its warmth and its expiry. A key whose quota is whole is left as it is.
	 */
	@Override
	public @Nullable State refund(@Nullable State state, long now, long admittedAt, long cost) {
		if (state == null || state.at() <= now) {
			// a key whose quota is whole (a cold one too) has nothing to give back; at never moves later, so that
			// the key is never kept warm longer than its expiry
			return state;
		}
		return new State(Math.max(now, state.at() - cost * this.intervalMicros), state.since());
	}

}
