/**
 * Built-in key resolution: ip, user, api-key, header, global, endpoint, SpEL templates and composites.
 */
@NullMarked
package dev.ratelimit.key;

import org.jspecify.annotations.NullMarked;
