package dev.ratelimit.resilience;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.Verdict;
import org.jspecify.annotations.Nullable;

/**
 * Remembers requests denied for at least {@code minimumWait}, so that the same request (same rules, subjects, costs
 * and distinct values) is denied from memory until the wait ends: same decisions (their durations shortened by the time elapsed),
 * no store call. Allowed requests are never cached. Bounded in entries; each entry expires when its wait ends.
 * <p>
 * This is exact, not an approximation: a denied request consumed nothing, and its {@code retryAfter} is the time
 * until the store could admit it again, so every answer the cache gives is the answer the store would give (unless an
 * operator resets the subject, which also clears the cache). A denial by a concurrency cap is never remembered: its
 * slots come back when requests end, at times no wait can foresee.
 */
public final class DenyCache {

	private final Cache<String, Entry> entries;

	private final long minimumWaitNanos;

	private final LongSupplier nanoTime;

	/**
	 * @param maximumEntries the most remembered denials
	 * @param minimumWait the shortest wait worth remembering
	 * @param nanoTime the monotonic time source
	 */
	public DenyCache(long maximumEntries, Duration minimumWait, LongSupplier nanoTime) {
		this.minimumWaitNanos = minimumWait.toNanos();
		this.nanoTime = nanoTime;
		this.entries = Caffeine.newBuilder()
			.maximumSize(maximumEntries)
			.ticker(nanoTime::getAsLong)
			.expireAfter(new Expiry<String, Entry>() {

				@Override
				public long expireAfterCreate(String key, Entry entry, long currentTime) {
					return Math.max(0, entry.untilNanos - currentTime);
				}

				@Override
				public long expireAfterUpdate(String key, Entry entry, long currentTime, long currentDuration) {
					return Math.max(0, entry.untilNanos - currentTime);
				}

				@Override
				public long expireAfterRead(String key, Entry entry, long currentTime, long currentDuration) {
					return currentDuration;
				}

			})
			.build();
	}

	/** Returns the remembered denial of this request, adjusted to now, or {@code null}. */
	public @Nullable Verdict get(List<RateLimitCheck> checks) {
		if (this.entries.estimatedSize() == 0) {
			// the common case: nothing is denied right now, so skip building the signature
			return null;
		}
		Entry entry = this.entries.getIfPresent(signature(checks));
		if (entry == null) {
			return null;
		}
		long now = this.nanoTime.getAsLong();
		if (now >= entry.untilNanos) {
			return null;
		}
		Duration elapsed = Duration.ofNanos(now - entry.storedNanos);
		List<Decision> decisions = new ArrayList<>(entry.verdict.decisions().size());
		for (Decision decision : entry.verdict.decisions()) {
			decisions.add(shorten(decision, elapsed));
		}
		return new Verdict(checks, decisions);
	}

	/** Remembers a verdict if it is a denial whose wait is long enough. */
	public void remember(Verdict verdict) {
		if (verdict.allowed() || verdict.storeUnavailable()) {
			return;
		}
		if (verdict.deniedIndexes().stream().anyMatch((i) -> verdict.decisions().get(i).neverAllowed())) {
			// no wait ends a request that can never be admitted; it is cheap to deny anyway
			return;
		}
		if (verdict.deniedIndexes().stream()
			.anyMatch((i) -> verdict.checks().get(i).policy().algorithm() == Algorithm.CONCURRENCY)) {
			// a full concurrency cap frees a slot whenever a request ends, long before its suggested wait: only the
			// store knows
			return;
		}
		// a request whose checks would wait for a slot is denied only while its wait is longer than that
		Duration wait = verdict.retryAfter().minus(longestMaxWait(verdict.checks()));
		if (wait.toNanos() < this.minimumWaitNanos) {
			return;
		}
		long now = this.nanoTime.getAsLong();
		this.entries.put(signature(verdict.checks()), new Entry(verdict, now, now + wait.toNanos()));
	}

	/** Forgets every remembered denial that involves a rule and subject. */
	public void forget(String rule, String subject) {
		String part = '\u0001' + rule + '\u0000' + subject + '\u0000';
		this.entries.asMap().keySet().removeIf((key) -> ('\u0001' + key).contains(part));
	}

	/** Forgets every remembered denial. */
	public void clear() {
		this.entries.invalidateAll();
	}

	/** Returns the number of remembered denials (an estimate). */
	public long size() {
		this.entries.cleanUp();
		return this.entries.estimatedSize();
	}

	private static Decision shorten(Decision decision, Duration elapsed) {
		Duration reset = decision.resetAfter().minus(elapsed);
		if (reset.isNegative()) {
			reset = Duration.ZERO;
		}
		Duration next = decision.nextAfter().minus(elapsed);
		if (next.isNegative()) {
			next = Duration.ZERO;
		}
		Duration retry = decision.retryAfter();
		if (!decision.allowed() && !decision.neverAllowed()) {
			retry = retry.minus(elapsed);
			if (retry.compareTo(Duration.of(1, ChronoUnit.MICROS)) < 0) {
				retry = Duration.of(1, ChronoUnit.MICROS);
			}
			if (next.compareTo(retry) > 0) {
				next = retry;
			}
		}
		// the instant of the reset stays what the store said
		return new Decision(decision.allowed(), decision.limit(), decision.remaining(), reset, retry, null, 0, next,
				decision.resetAt());
	}

	private static Duration longestMaxWait(List<RateLimitCheck> checks) {
		Duration longest = Duration.ZERO;
		for (RateLimitCheck check : checks) {
			if (check.maxWait().compareTo(longest) > 0) {
				longest = check.maxWait();
			}
		}
		return longest;
	}

	private static String signature(List<RateLimitCheck> checks) {
		StringBuilder signature = new StringBuilder();
		for (RateLimitCheck check : checks) {
			signature.append(check.policy().name())
				.append('\u0000')
				.append(check.subject())
				.append('\u0000')
				.append(check.cost())
				.append('/')
				.append(check.policy().limit())
				.append('/')
				.append(check.policy().periodMicros())
				.append('/')
				.append(check.policy().capacity())
				.append(check.shadow() ? 's' : 'e')
				// a distinct denial holds for a new value only: a value seen in the window is admitted
				.append((check.distinctValue() != null) ? check.distinctValue() : "")
				.append(check.maxWait().isZero() ? "" : "/w" + check.maxWait().toNanos())
				// a calendar quota's window is its zone's: a denial in one zone does not hold in another
				.append((check.policy().calendar() != null) ? "/z" + check.policy().calendar().zone().getId() : "")
				.append('\u0001');
		}
		return signature.toString();
	}

	private record Entry(Verdict verdict, long storedNanos, long untilNanos) {
	}

}
