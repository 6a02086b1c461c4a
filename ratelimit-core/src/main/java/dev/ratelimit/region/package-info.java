/**
 * Limits that hold across regions ({@code scope: global}): each region counts in its own store under its own region
 * entry, a PN-counter per key and window, and ships its entries to the other regions' stores, where they merge by
 * maximum. See {@code docs/consistency.md} for the error bound.
 */
@NullMarked
package dev.ratelimit.region;

import org.jspecify.annotations.NullMarked;
