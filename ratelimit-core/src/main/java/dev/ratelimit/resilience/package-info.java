/**
 * Calm when the store is not: per-rule failure modes, the circuit breaker, the local deny cache.
 */
@NullMarked
package dev.ratelimit.resilience;

import org.jspecify.annotations.NullMarked;
