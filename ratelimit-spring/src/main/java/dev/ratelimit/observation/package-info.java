/**
 * Micrometer observations of rate limit decisions: one per decision, and one per wait for a reserved slot.
 */
@NullMarked
package dev.ratelimit.observation;

import org.jspecify.annotations.NullMarked;
