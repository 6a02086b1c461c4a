package dev.ratelimit.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.rule.RateLimitRule;
import org.jspecify.annotations.Nullable;

/**
 * Counts the requests of each rule that wait for a reserved slot in this instance, up to the rule's
 * {@code max-waiting}. A request takes a place under each of its rules that may wait before it is evaluated; a check
 * whose rule has no place left gets no {@code maxWait}, so the request is answered at once. Each web adapter (the
 * servlet filter, the WebFlux filter) keeps one.
 */
public final class WaitingRoom {

	private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();

	/**
	 * Takes a place for each check that may wait, and returns the checks to evaluate with the places taken.
	 * @param checks the request's checks
	 * @param rules the rule of a check's policy name, or {@code null}
	 * @return the checks (without {@code maxWait} where no place was left) and the places
	 */
	public Places enter(List<RateLimitCheck> checks, Function<String, @Nullable RateLimitRule> rules) {
		List<RateLimitCheck> admitted = null;
		List<AtomicInteger> taken = null;
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			if (check.maxWait().isZero()) {
				continue;
			}
			RateLimitRule rule = rules.apply(check.policy().name());
			int capacity = (rule != null) ? rule.waiting().maxWaiting() : 0;
			AtomicInteger count = this.waiting.computeIfAbsent(check.policy().name(), (name) -> new AtomicInteger());
			if (count.incrementAndGet() <= capacity) {
				taken = (taken != null) ? taken : new ArrayList<>(1);
				taken.add(count);
				continue;
			}
			count.decrementAndGet();
			admitted = (admitted != null) ? admitted : new ArrayList<>(checks);
			admitted.set(i, check.withMaxWait(Duration.ZERO));
		}
		return new Places((admitted != null) ? admitted : checks, (taken != null) ? taken : List.of());
	}

	/** Returns how many requests of a rule wait now in this instance. */
	public int waiting(String rule) {
		AtomicInteger count = this.waiting.get(rule);
		return (count != null) ? count.get() : 0;
	}

	/** The checks to evaluate, and the places taken for them; {@link #leave()} gives them back once. */
	public static final class Places {

		private final List<RateLimitCheck> checks;

		private @Nullable List<AtomicInteger> taken;

		Places(List<RateLimitCheck> checks, List<AtomicInteger> taken) {
			this.checks = checks;
			this.taken = taken;
		}

		/** Returns the checks to evaluate. */
		public List<RateLimitCheck> checks() {
			return this.checks;
		}

		/** Gives the places back; only the first call does anything. */
		public synchronized void leave() {
			if (this.taken != null) {
				this.taken.forEach(AtomicInteger::decrementAndGet);
				this.taken = null;
			}
		}

	}

}
