/**
 * The Redis store: the only code that knows key layout, script arguments and reply shape.
 */
@NullMarked
package dev.ratelimit.redis;

import org.jspecify.annotations.NullMarked;
