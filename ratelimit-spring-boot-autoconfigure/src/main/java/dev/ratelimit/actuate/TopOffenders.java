package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.Verdict;
import dev.ratelimit.redis.RedisKeys;

/**
 * The subjects denied most often, per rule, over a recent window: a space-saving sketch (Metwally et al.) of at most
 * {@code capacity} subjects per rule, in two halves of {@code window / 2} so that old offenders age out. Memory is
 * bounded whatever clients send (subjects are stored in their key-safe, length-bounded form). Shown only by the
 * actuator endpoint, never as metric tags.
 */
public class TopOffenders implements RateLimitListener {

	/** One subject's denials; {@code error} is the space-saving over-estimate bound. */
	public record Offender(String subject, long denials, long error) {
	}

	private final int capacity;

	private final long halfWindowNanos;

	private final LongSupplier nanoTime;

	private final Map<String, RuleSketch> rules = new ConcurrentHashMap<>();

	private final int maximumRules;

	public TopOffenders(int capacity, Duration window, LongSupplier nanoTime) {
		this.capacity = capacity;
		this.halfWindowNanos = Math.max(1, window.toNanos() / 2);
		this.nanoTime = nanoTime;
		this.maximumRules = 1_000;
	}

	@Override
	public void onVerdict(Verdict verdict, Source source) {
		// runs on every request: a plain loop that does nothing unless a check denied
		for (int i = 0; i < verdict.checks().size(); i++) {
			if (!verdict.decisions().get(i).allowed()) {
				String rule = verdict.checks().get(i).policy().name();
				RuleSketch sketch = this.rules.get(rule);
				if (sketch == null) {
					if (this.rules.size() >= this.maximumRules) {
						continue;
					}
					sketch = this.rules.computeIfAbsent(rule, (name) -> new RuleSketch());
				}
				sketch.add(RedisKeys.safeSubject(verdict.checks().get(i).subject()), this.nanoTime.getAsLong());
			}
		}
	}

	/** Returns the top offenders of every rule, most denials first. */
	public Map<String, List<Offender>> top(int limit) {
		Map<String, List<Offender>> top = new LinkedHashMap<>();
		this.rules.entrySet().stream().sorted(Map.Entry.comparingByKey())
			.forEach((entry) -> top.put(entry.getKey(), entry.getValue().top(limit, this.nanoTime.getAsLong())));
		return top;
	}

	private final class RuleSketch {

		private Map<String, long[]> current = new HashMap<>();

		private Map<String, long[]> previous = new HashMap<>();

		private long currentStart = Long.MIN_VALUE;

		synchronized void add(String subject, long now) {
			rotate(now);
			long[] counts = this.current.get(subject);
			if (counts != null) {
				counts[0]++;
				return;
			}
			if (this.current.size() < TopOffenders.this.capacity) {
				this.current.put(subject, new long[] { 1, 0 });
				return;
			}
			String smallest = null;
			long min = Long.MAX_VALUE;
			for (Map.Entry<String, long[]> entry : this.current.entrySet()) {
				if (entry.getValue()[0] < min) {
					min = entry.getValue()[0];
					smallest = entry.getKey();
				}
			}
			this.current.remove(smallest);
			this.current.put(subject, new long[] { min + 1, min });
		}

		synchronized List<Offender> top(int limit, long now) {
			rotate(now);
			Map<String, long[]> merged = new HashMap<>();
			for (Map<String, long[]> half : List.of(this.previous, this.current)) {
				half.forEach((subject, counts) -> {
					long[] sum = merged.computeIfAbsent(subject, (key) -> new long[2]);
					sum[0] += counts[0];
					sum[1] += counts[1];
				});
			}
			List<Offender> offenders = new ArrayList<>();
			merged.forEach((subject, counts) -> offenders.add(new Offender(subject, counts[0], counts[1])));
			offenders.sort(Comparator.comparingLong(Offender::denials).reversed().thenComparing(Offender::subject));
			return List.copyOf(offenders.subList(0, Math.min(limit, offenders.size())));
		}

		private void rotate(long now) {
			if (this.currentStart == Long.MIN_VALUE) {
				this.currentStart = now;
			}
			long elapsed = now - this.currentStart;
			if (elapsed >= 2 * TopOffenders.this.halfWindowNanos) {
				this.previous = new HashMap<>();
				this.current = new HashMap<>();
				this.currentStart = now;
			}
			else if (elapsed >= TopOffenders.this.halfWindowNanos) {
				this.previous = this.current;
				this.current = new HashMap<>();
				this.currentStart = now;
			}
		}

	}

}
