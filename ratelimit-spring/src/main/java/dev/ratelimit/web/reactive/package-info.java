/**
 * The WebFlux adapter: the {@code WebFilter}, the request view of a {@code ServerWebExchange}, reactive key
 * resolvers and the reactive problem+json rejection. Every call to the store on this path is non-blocking.
 */
@NullMarked
package dev.ratelimit.web.reactive;

import org.jspecify.annotations.NullMarked;
