/**
 * The servlet adapter: the filter, the standard headers and the problem+json rejection.
 */
@NullMarked
package dev.ratelimit.web;

import org.jspecify.annotations.NullMarked;
