/**
 * Operating the limiter: the {@code ratelimits} actuator endpoint, health, Micrometer metrics, the top offenders.
 */
@NullMarked
package dev.ratelimit.actuate;

import org.jspecify.annotations.NullMarked;
