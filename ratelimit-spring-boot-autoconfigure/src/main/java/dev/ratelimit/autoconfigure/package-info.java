/**
 * Auto-configuration of the rate limiter: the only package that imports Spring Boot auto-configuration.
 */
@NullMarked
package dev.ratelimit.autoconfigure;

import org.jspecify.annotations.NullMarked;
