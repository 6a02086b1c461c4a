package dev.ratelimit.region;

/**
 * What a region's store answered for one check of a {@code scope: global} rule: the key's state merged over every
 * region's entries as the check was decided, and this region's entry after the call.
 *
 * @param window the start of the window the check counted in (microseconds)
 * @param previous the units of the window before it, net of refunds, over every region (0 for a fixed window)
 * @param current the units of the window, net of refunds, over every region
 * @param entry this region's entry after the call (its cumulative admissions, or refunds for a refund), 0 when the
 * call wrote none
 */
public record RegionState(long window, long previous, long current, long entry) {
}
