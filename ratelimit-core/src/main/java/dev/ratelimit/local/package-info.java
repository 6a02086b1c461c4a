/**
 * The in-memory store: the reference maths over a bounded, expiring map.
 */
@NullMarked
package dev.ratelimit.local;

import org.jspecify.annotations.NullMarked;
