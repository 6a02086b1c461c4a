/**
 * The {@code ratelimit.*} rules on Spring Cloud Gateway routes: {@link dev.ratelimit.gateway.RateLimitGatewayRateLimiter}
 * for the gateway's {@code RequestRateLimiter} filter, and the {@code RateLimit} route filter
 * ({@link dev.ratelimit.gateway.RateLimitGatewayFilterFactory}) with the starter's own answers (problem+json, 503).
 */
@NullMarked
package dev.ratelimit.gateway;

import org.jspecify.annotations.NullMarked;
