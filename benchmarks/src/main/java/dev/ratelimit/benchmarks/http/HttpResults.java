package dev.ratelimit.benchmarks.http;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What one run of the HTTP benchmark measured, instance by instance.
 *
 * @param redis the limiter on Redis (Lettuce observation off, as the sample sets it)
 * @param local the limiter on the local store
 * @param off the limiter off
 * @param observedRedis the limiter on Redis with Spring Boot's default Lettuce command observation
 * @param observedOff the limiter off with Spring Boot's default Lettuce command observation
 * @param redisVersion the version of the Redis every instance used
 * @param took how long the run took
 */
record HttpResults(Tally redis, Tally local, Tally off, Tally observedRedis, Tally observedOff,
		Tally redisUnobserved, @Nullable Tally redisVirtual, String redisVersion, Duration took) {
}
