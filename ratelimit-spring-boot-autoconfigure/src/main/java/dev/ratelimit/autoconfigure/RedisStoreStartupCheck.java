package dev.ratelimit.autoconfigure;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.store.RateLimitStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Tells at start-up whether Redis answers, without failing start-up (each rule's {@code on-store-failure} exists for
 * a Redis that does not): once the context is refreshed, a background thread loads the scripts into Redis, which
 * proves the connection and saves the first requests a {@code NOSCRIPT} round trip, and logs the outcome in one line.
 */
class RedisStoreStartupCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(RedisStoreStartupCheck.class);

	private final ObjectProvider<RateLimitStore> store;

	private final ObjectProvider<RateLimitRules> rules;

	private final String where;

	RedisStoreStartupCheck(ObjectProvider<RateLimitStore> store, ObjectProvider<RateLimitRules> rules, String where) {
		this.store = store;
		this.rules = rules;
		this.where = where;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (!(this.store.getIfUnique() instanceof RedisRateLimitStore redis)) {
			return;
		}
		Thread thread = new Thread(() -> check(redis), "ratelimit-redis-check");
		thread.setDaemon(true);
		thread.start();
	}

	void check(RedisRateLimitStore redis) {
		long start = System.nanoTime();
		try {
			redis.loadScripts();
			logger.info("Redis (" + this.where + ") answered in " + (System.nanoTime() - start) / 1_000_000
					+ " ms; rate limit decisions are shared through it");
		}
		catch (RuntimeException ex) {
			logger.warn("Redis (" + this.where + ") is not reachable at start-up (" + rootMessage(ex) + "). Until it"
					+ " answers, each rule decides by its on-store-failure (" + failureModes() + "); decisions return"
					+ " to Redis by themselves when it does. The 'ratelimit' health component shows the state.");
		}
	}

	private String failureModes() {
		Map<StoreFailureMode, StringJoiner> modes = new EnumMap<>(StoreFailureMode.class);
		RateLimitRules rules = this.rules.getIfAvailable();
		for (RateLimitRule rule : (rules != null) ? rules.all() : List.<RateLimitRule>of()) {
			modes.computeIfAbsent(rule.onStoreFailure(), (mode) -> new StringJoiner(", ", "[", "]")).add(rule.name());
		}
		if (modes.isEmpty()) {
			return "no rules configured";
		}
		StringJoiner text = new StringJoiner("; ");
		modes.forEach((mode, names) -> text.add(mode.name().toLowerCase(Locale.ROOT) + " " + names));
		return text.toString();
	}

	private static String rootMessage(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root.getClass().getSimpleName() + ((root.getMessage() != null) ? ": " + root.getMessage() : "");
	}

}
