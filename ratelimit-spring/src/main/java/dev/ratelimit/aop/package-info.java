/**
 * The {@link dev.ratelimit.RateLimited} annotation adapter.
 */
@NullMarked
package dev.ratelimit.aop;

import org.jspecify.annotations.NullMarked;
