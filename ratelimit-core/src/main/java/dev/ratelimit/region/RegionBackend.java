package dev.ratelimit.region;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Consumption;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;

/**
 * A region's store for {@code scope: global} rules: per key, a hash of region entries (a PN-counter per window), which
 * every decision sums. Implemented by the Redis store ({@code region.lua}) and, as the reference, by
 * {@link RegionCounters}.
 */
public interface RegionBackend {

	/**
	 * Decides checks on the sum of every region's entries in one atomic call, and counts the admitted ones under this
	 * region's entry when {@code commit} is set and every enforced check fits.
	 * @param checks fixed window or sliding window counter checks
	 * @param region this region, whose entry counts
	 * @param commit {@code false} to only read
	 * @return the merged states and this region's entries after the call
	 */
	CompletableFuture<RegionReply> count(List<RateLimitCheck> checks, String region, boolean commit);

	/**
	 * Gives units back under this region's refund entry of the window they were counted in.
	 * @param consumptions what was counted
	 * @param region this region
	 * @return the merged states after, each with this region's refund entry
	 */
	CompletableFuture<RegionReply> refund(List<Consumption> consumptions, String region);

	/**
	 * Charges units without a limit check under this region's count entry of the window they belong to (a request
	 * settled after its response that cost more than it reserved: the sum may so exceed the limit), while that window
	 * still weighs.
	 * <p>
	 * The default fails: a backend that only counts with a limit check cannot charge.
	 * @param charges the units, each at the time its request was counted
	 * @param region this region
	 * @return the merged states after, each with this region's count entry
	 */
	default CompletableFuture<RegionReply> charge(List<Consumption> charges, String region) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot charge");
	}

	/**
	 * Merges another region's entries: each field takes the larger of its value and the one shipped, so a merge that
	 * is repeated, reordered or overtaken changes nothing.
	 * @param entries the entries, one element per key
	 * @return done when merged
	 */
	CompletableFuture<Void> merge(List<RegionEntries> entries);

	/**
	 * Clears a key's entries in this store (every region's, as this store holds them).
	 * @param policy the key's policy
	 * @param subject the key's subject
	 */
	void clear(RateLimitPolicy policy, String subject);

}
