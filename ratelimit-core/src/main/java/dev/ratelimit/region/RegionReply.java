package dev.ratelimit.region;

import java.util.List;

/**
 * A region's store's answer to a count or a refund.
 *
 * @param nowMicros the store's time of the call
 * @param admitted whether every enforced check fitted (and, when committed, was counted)
 * @param states per check or refund, in order
 */
public record RegionReply(long nowMicros, boolean admitted, List<RegionState> states) {

	public RegionReply {
		states = List.copyOf(states);
	}

}
