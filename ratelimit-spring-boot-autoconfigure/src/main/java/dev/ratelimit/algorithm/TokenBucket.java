package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * Token bucket: holds up to {@code capacity} tokens and gains one every {@code interval}; a request takes
 * {@code cost} tokens. Refill is discrete: whole tokens only, the fraction of an interval already elapsed is kept in
 * {@code last} (the time the last whole token was added). A full bucket is the same as no state.
 *
 * @param intervalMicros time to gain one token, {@code period / limit}
 * @param capacity the burst: the most tokens the bucket holds
 */
public record TokenBucket(long intervalMicros, long capacity) implements LimitAlgorithm<TokenBucket.State> {

	/**
	 * @param tokens tokens in the bucket
	 * @param last time at which the last whole token was added, in microseconds
	 */
	public record State(long tokens, long last) {
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long tokens = this.capacity;
		long last = now;
		if (state != null) {
			tokens = state.tokens();
			last = state.last();
			if (now > last) {
				long added = (now - last) / this.intervalMicros;
				tokens = Math.min(this.capacity, tokens + added);
				last = (tokens == this.capacity) ? now : last + added * this.intervalMicros;
			}
		}
		long sinceLast = Math.max(0, now - last);
		if (cost > this.capacity) {
			return Outcome.never(tokens, untilFull(tokens, sinceLast), state);
		}
		if (tokens < cost) {
			return Outcome.denied(tokens, untilFull(tokens, sinceLast),
					(cost - tokens) * this.intervalMicros - sinceLast, state);
		}
		long left = tokens - cost;
		long reset = untilFull(left, sinceLast);
		return Outcome.allowed(left, reset, new State(left, last), reset);
	}

	private long untilFull(long tokens, long sinceLast) {
		return (tokens >= this.capacity) ? 0 : (this.capacity - tokens) * this.intervalMicros - sinceLast;
	}

}
