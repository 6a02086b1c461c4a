/**
 * The servlet adapter: the filter, the request view of a servlet request, the standard headers and the problem+json
 * rejection.
 */
@NullMarked
package dev.ratelimit.web;

import org.jspecify.annotations.NullMarked;
