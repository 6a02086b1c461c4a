/**
 * Public API of the rate limiter: policies, checks, decisions, verdicts, the {@link dev.ratelimit.RateLimiter}
 * facade, the {@link dev.ratelimit.store.RateLimitStore} SPI, and the {@link dev.ratelimit.RateLimitRequest} view that keys
 * read, whatever the web stack. Nothing here depends on the Servlet API.
 */
@NullMarked
package dev.ratelimit;

import org.jspecify.annotations.NullMarked;
