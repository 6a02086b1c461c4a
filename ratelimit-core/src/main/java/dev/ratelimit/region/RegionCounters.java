package dev.ratelimit.region;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.algorithm.Algorithms;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LimitAlgorithm;
import dev.ratelimit.algorithm.Outcome;
import dev.ratelimit.algorithm.SlidingWindowCounter;

/**
 * The reference maths of {@code scope: global} rules, and an in-memory {@link RegionBackend} made of it (what
 * {@code region.lua} does, checked against it by the differential test).
 * <p>
 * A key's state is a hash of entries: {@code <region>:<window>} holds the units that region admitted in that window,
 * cumulative, and {@code <region>:<window>:r} the units it gave back. Both only grow, so a region's entries merge into
 * a peer's hash by maximum (a PN-counter per window): merges may repeat, arrive out of order or overtake each other.
 * A decision sums the entries of the windows it needs over every region, net of refunds and at least 0, into the state
 * record of the rule's algorithm, and applies the algorithm's own maths to it: the fixed window reads its window, the
 * sliding window counter its window and the one before. Entries of a window that ended two periods or more before
 * now weigh nothing and are dropped when the key is written.
 */
public final class RegionCounters implements RegionBackend {

	private final Map<String, Map<String, Long>> hashes = new HashMap<>();

	private final LongSupplier nowMicros;

	/**
	 * Creates an in-memory region store on a clock.
	 * @param nowMicros the clock in microseconds since the epoch
	 */
	public RegionCounters(LongSupplier nowMicros) {
		this.nowMicros = nowMicros;
	}

	/** Returns whether an algorithm can be counted across regions. */
	public static boolean supports(Algorithm algorithm) {
		return algorithm == Algorithm.FIXED_WINDOW || algorithm == Algorithm.SLIDING_WINDOW_COUNTER;
	}

	/**
	 * Returns whether a policy can be counted across regions: a fixed window or a sliding window counter of a period
	 * (calendar quotas are not).
	 */
	public static boolean supports(RateLimitPolicy policy) {
		return supports(policy.algorithm()) && policy.calendar() == null;
	}

	/** Returns the start of the window a policy counts {@code now} in, for a subject. */
	public static long windowOf(RateLimitPolicy policy, String subject, long now) {
		long period = policy.periodMicros();
		long offset = Algorithms.windowOffset(policy, subject);
		return Math.floorDiv(now - offset, period) * period + offset;
	}

	/** Returns the field of a region's admissions in a window. */
	public static String field(String region, long window) {
		return region + ':' + window;
	}

	/** Returns the field of a region's refunds in a window. */
	public static String refundField(String region, long window) {
		return region + ':' + window + ":r";
	}

	/** Returns the window of a field, or {@code Long.MIN_VALUE} if it names none. */
	static long windowOfField(String field) {
		int start = field.indexOf(':');
		if (start < 0) {
			return Long.MIN_VALUE;
		}
		int end = field.indexOf(':', start + 1);
		try {
			return Long.parseLong((end < 0) ? field.substring(start + 1) : field.substring(start + 1, end));
		}
		catch (NumberFormatException ex) {
			return Long.MIN_VALUE;
		}
	}

	/** Returns the units of a window over every region, net of refunds, at least 0. */
	static long net(Map<String, Long> entries, long window) {
		long net = 0;
		for (Map.Entry<String, Long> entry : entries.entrySet()) {
			String field = entry.getKey();
			if (windowOfField(field) == window) {
				net += field.endsWith(":r") ? -entry.getValue() : entry.getValue();
			}
		}
		return Math.max(0, net);
	}

	/** Returns the merged state of a key's entries for a decision at {@code now}. */
	static RegionState merged(Map<String, Long> entries, RateLimitPolicy policy, String subject, long now) {
		long window = windowOf(policy, subject, now);
		long previous = (policy.algorithm() == Algorithm.SLIDING_WINDOW_COUNTER)
				? net(entries, window - policy.periodMicros()) : 0;
		return new RegionState(window, previous, net(entries, window), 0);
	}

	/**
	 * Returns the algorithm's outcome for a check on a merged state: what a region decides and what the headers say.
	 * @param policy the policy
	 * @param subject the subject
	 * @param state the merged state
	 * @param now the time
	 * @param cost the units asked
	 * @return the outcome
	 */
	public static Outcome<?> outcome(RateLimitPolicy policy, String subject, RegionState state, long now, long cost) {
		LimitAlgorithm<?> algorithm = Algorithms.of(policy, subject);
		if (algorithm instanceof FixedWindow fixed) {
			return fixed.apply(new FixedWindow.State(state.window(), state.current()), now, cost);
		}
		if (algorithm instanceof SlidingWindowCounter sliding) {
			return sliding.apply(new SlidingWindowCounter.State(state.window(), state.previous(), state.current()), now,
					cost);
		}
		throw new IllegalArgumentException(policy.algorithm() + " is not counted across regions");
	}

	/**
	 * Returns the decisions of a reply, as the reference maths gives them for its merged states: a check that fitted in
	 * a request that was denied is reported as a look without the request.
	 * @param checks the checks
	 * @param reply the reply
	 * @return the decisions, in order
	 */
	public static List<Decision> decisions(List<RateLimitCheck> checks, RegionReply reply) {
		List<Decision> decisions = new ArrayList<>(checks.size());
		long now = reply.nowMicros();
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			RegionState state = reply.states().get(i);
			Outcome<?> outcome = outcome(check.policy(), check.subject(), state, now, check.cost());
			if (outcome.allowed() && !reply.admitted()) {
				outcome = outcome(check.policy(), check.subject(), state, now, 0);
			}
			decisions.add(Decision.ofMicros(outcome.allowed(), check.policy().limit(), outcome.remaining(),
					outcome.resetAfterMicros(), outcome.retryAfterMicros(), outcome.nextAfterMicros(), now));
		}
		return decisions;
	}

	/** Drops the entries of windows that weigh nothing at {@code now} any more. */
	static void dropStale(Map<String, Long> entries, long period, long now) {
		Iterator<String> fields = entries.keySet().iterator();
		while (fields.hasNext()) {
			long window = windowOfField(fields.next());
			if (window != Long.MIN_VALUE && window + 2 * period <= now) {
				fields.remove();
			}
		}
	}

	private static String key(RateLimitPolicy policy, String subject) {
		return policy.name() + ':' + subject;
	}

	/** Returns a copy of a key's entries (for tests). */
	public synchronized Map<String, Long> entries(RateLimitPolicy policy, String subject) {
		return Map.copyOf(this.hashes.getOrDefault(key(policy, subject), Map.of()));
	}

	@Override
	public synchronized CompletableFuture<RegionReply> count(List<RateLimitCheck> checks, String region,
			boolean commit) {
		long now = this.nowMicros.getAsLong();
		Map<String, Map<String, Long>> working = new HashMap<>();
		List<RegionState> states = new ArrayList<>(checks.size());
		boolean admitted = true;
		boolean[] fits = new boolean[checks.size()];
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			Map<String, Long> entries = working.computeIfAbsent(key(check.policy(), check.subject()),
					(k) -> new HashMap<>(this.hashes.getOrDefault(k, Map.of())));
			RegionState state = merged(entries, check.policy(), check.subject(), now);
			states.add(state);
			fits[i] = outcome(check.policy(), check.subject(), state, now, check.cost()).allowed();
			if (fits[i]) {
				entries.merge(field(region, state.window()), check.cost(), Long::sum);
			}
			else if (!check.shadow()) {
				admitted = false;
			}
		}
		if (!commit || !admitted) {
			return CompletableFuture.completedFuture(new RegionReply(now, admitted, states));
		}
		List<RegionState> after = new ArrayList<>(checks.size());
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			RegionState state = states.get(i);
			long entry = 0;
			if (fits[i] && check.cost() > 0) {
				Map<String, Long> entries = this.hashes.computeIfAbsent(key(check.policy(), check.subject()),
						(k) -> new HashMap<>());
				dropStale(entries, check.policy().periodMicros(), now);
				entry = entries.merge(field(region, state.window()), check.cost(), Long::sum);
			}
			after.add(new RegionState(state.window(), state.previous(), state.current(), entry));
		}
		return CompletableFuture.completedFuture(new RegionReply(now, true, after));
	}

	@Override
	public synchronized CompletableFuture<RegionReply> refund(List<Consumption> consumptions, String region) {
		return add(consumptions, (window) -> refundField(region, window));
	}

	@Override
	public synchronized CompletableFuture<RegionReply> charge(List<Consumption> charges, String region) {
		return add(charges, (window) -> field(region, window));
	}

	/** Adds each consumption's units to the entry of its window that {@code field} names, while the window weighs. */
	private CompletableFuture<RegionReply> add(List<Consumption> consumptions, LongFunction<String> field) {
		long now = this.nowMicros.getAsLong();
		List<RegionState> states = new ArrayList<>(consumptions.size());
		for (Consumption consumption : consumptions) {
			RateLimitPolicy policy = consumption.policy();
			long window = windowOf(policy, consumption.subject(), consumption.atMicros());
			Map<String, Long> entries = this.hashes.computeIfAbsent(key(policy, consumption.subject()),
					(k) -> new HashMap<>());
			long entry = 0;
			if (window + 2 * policy.periodMicros() > now) {
				dropStale(entries, policy.periodMicros(), now);
				entry = entries.merge(field.apply(window), consumption.cost(), Long::sum);
			}
			RegionState state = merged(entries, policy, consumption.subject(), now);
			states.add(new RegionState(state.window(), state.previous(), state.current(), entry));
		}
		return CompletableFuture.completedFuture(new RegionReply(now, true, states));
	}

	@Override
	public synchronized void clear(RateLimitPolicy policy, String subject) {
		this.hashes.remove(key(policy, subject));
	}

	@Override
	public synchronized CompletableFuture<Void> merge(List<RegionEntries> entries) {
		long now = this.nowMicros.getAsLong();
		for (RegionEntries shipped : entries) {
			long period = shipped.policy().periodMicros();
			Map<String, Long> hash = this.hashes.computeIfAbsent(key(shipped.policy(), shipped.subject()),
					(k) -> new HashMap<>());
			shipped.fields().forEach((field, value) -> {
				long window = windowOfField(field);
				if (window != Long.MIN_VALUE && window + 2 * period > now) {
					hash.merge(field, value, Math::max);
				}
			});
			dropStale(hash, period, now);
		}
		return CompletableFuture.completedFuture(null);
	}

}
