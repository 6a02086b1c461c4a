/**
 * Outbound limiting: a named rule applied to the calls this application makes to another service, through a
 * {@code RestClient}/{@code RestTemplate} interceptor or a {@code WebClient} filter, waiting for a slot reserved in the
 * shared store and honouring the provider's own {@code 429}/{@code 503} with {@code Retry-After}.
 */
@NullMarked
package dev.ratelimit.client;

import org.jspecify.annotations.NullMarked;
