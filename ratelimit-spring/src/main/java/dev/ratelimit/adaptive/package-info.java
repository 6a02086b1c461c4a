/**
 * Adaptive concurrency limits: per-instance limits on the requests in progress that follow the latency this instance
 * measures, computed by Netflix's {@code concurrency-limits} library (an optional dependency, needed only when an
 * {@code adaptive-concurrency} rule is configured). No store is involved: they measure this instance's capacity.
 */
@NullMarked
package dev.ratelimit.adaptive;

import org.jspecify.annotations.NullMarked;
