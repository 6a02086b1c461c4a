/**
 * The rule model: rules compiled once at start-up (path patterns, methods, key, tiers, cost) and matched per request.
 */
@NullMarked
package dev.ratelimit.rule;

import org.jspecify.annotations.NullMarked;
