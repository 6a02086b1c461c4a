package dev.ratelimit.resilience;

import dev.ratelimit.store.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * Who decides for the keys of one node of a store whose nodes fail independently (a master of a Redis Cluster).
 * @param description the node's address and the slots it serves, e.g. {@code 127.0.0.1:7001 slots 0-5460}
 * @param state {@link StoreState#REDIS} while the node decides, {@link StoreState#FALLBACK} while its breaker is open
 * or half open
 * @param circuit the state of the node's circuit breaker
 */
public record StoreNodeStatus(String description, StoreState state, CircuitBreaker.State circuit) {
}
