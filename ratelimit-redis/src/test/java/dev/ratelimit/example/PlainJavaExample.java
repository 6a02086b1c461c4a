package dev.ratelimit.example;

import java.io.PrintStream;
import java.time.Duration;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStoreBuilder;
import dev.ratelimit.redis.RedisStoreConnection;
import dev.ratelimit.resilience.ResilientRateLimiter;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

/**
 * The engine without Spring: {@code ratelimit-core} and {@code ratelimit-redis} on a plain Lettuce client. The part
 * between the tags is the example of {@code docs/engine.md} (the test holds the page to it), and
 * {@code PlainJavaExampleIntegrationTests} runs this {@code main} in a JVM whose class path holds no Spring jar.
 */
public final class PlainJavaExample {

	private PlainJavaExample() {
	}

	/**
	 * Sends six SMS requests of one user against a limit of five a minute.
	 * @param args the Redis URI ({@code redis://localhost:6379} if none) and the user
	 */
	public static void main(String[] args) {
		run((args.length > 0) ? args[0] : "redis://localhost:6379", (args.length > 1) ? args[1] : "user-42",
				System.out);
	}

	static void run(String redisUri, String user, PrintStream out) {
		// tag::example[]
		RedisClient client = RedisClient.create();
		client.setOptions(ClientOptions.builder()
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS) // never charge late
			.build());
		RedisStoreConnection connection = RedisStoreConnection.of(client, RedisURI.create(redisUri));
		RedisRateLimitStore store = new RedisRateLimitStoreBuilder(connection, "rl").timeout(Duration.ofMillis(100))
			.build();
		// Redis decides; while it is down, each rule falls back to this instance's memory (or allows, or denies)
		try (ResilientRateLimiter limiter = ResilientRateLimiter.builder(store).build()) {
			RateLimitPolicy sms = RateLimitPolicy.of("sms", Algorithm.GCRA, 5, Duration.ofMinutes(1));
			for (int i = 1; i <= 6; i++) {
				Verdict verdict = limiter.evaluate(RateLimitCheck.of(sms, user));
				out.println("sms " + i + ": " + (verdict.allowed() ? "allowed" : "denied, retry after "
						+ verdict.retryAfter().toSeconds() + " s") + " (remaining "
						+ verdict.decisions().get(0).remaining() + ", decided by "
						+ (verdict.storeUnavailable() ? "this instance" : "Redis") + ")");
			}
		}
		finally {
			store.close();
			client.shutdown();
		}
		// end::example[]
	}

}
