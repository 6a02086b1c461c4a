/**
 * Public API of the rate limiter: policies, checks, decisions, verdicts, the {@link dev.ratelimit.RateLimiter}
 * facade and the {@link dev.ratelimit.RateLimitStore} SPI.
 */
@NullMarked
package dev.ratelimit;

import org.jspecify.annotations.NullMarked;
