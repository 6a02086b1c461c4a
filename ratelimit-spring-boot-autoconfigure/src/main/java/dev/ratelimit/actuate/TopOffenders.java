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
import dev.ratelimit.store.Subjects;

/**
 * The subjects denied most often, per rule, over a recent window: a space-saving sketch (Metwally et al.) of at most
 * {@code capacity} subjects per rule, in two halves of {@code window / 2} so that old offenders age out. Memory is
 * bounded whatever clients send: subjects are counted by their key-safe form ({@link Subjects#safe}, so two
 * subjects are never merged) and shown in a readable form of bounded length (see {@link #readable}). Shown only by
 * the actuator endpoint, never as metric tags.
 */
public class TopOffenders implements RateLimitListener {

	/** Characters of a subject shown before it is cut. */
	public static final int MAX_READABLE = Subjects.MAX_RAW_LENGTH;

	/** Characters of the subject's hash shown after a subject that is not shown exactly. */
	static final int HASH_SHOWN = 8;

	/**
	 * One subject's denials.
	 * @param subject the subject as the rule resolved it, in the readable form of {@link TopOffenders#readable}
	 * @param denials its denials
	 * @param error the space-saving over-estimate bound of {@code denials}
	 */
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
				denied(verdict.checks().get(i).policy().name(), verdict.checks().get(i).subject());
			}
		}
	}

	/** A request the deny list refused counts as a denial of the rule whose subject it matched. */
	@Override
	public void onListed(String rule, String subject, boolean denied) {
		if (denied) {
			denied(rule, subject);
		}
	}

	private void denied(String rule, String subject) {
		RuleSketch sketch = this.rules.get(rule);
		if (sketch == null) {
			if (this.rules.size() >= this.maximumRules) {
				return;
			}
			sketch = this.rules.computeIfAbsent(rule, (name) -> new RuleSketch());
		}
		sketch.add(subject, this.nanoTime.getAsLong());
	}

	/** Returns the top offenders of every rule, most denials first. */
	public Map<String, List<Offender>> top(int limit) {
		Map<String, List<Offender>> top = new LinkedHashMap<>();
		this.rules.entrySet().stream().sorted(Map.Entry.comparingByKey())
			.forEach((entry) -> top.put(entry.getKey(), entry.getValue().top(limit, this.nanoTime.getAsLong())));
		return top;
	}

	/**
	 * Returns the readable form of a subject: the subject itself when it is at most {@value #MAX_READABLE} characters
	 * of printable text; otherwise its first {@value #MAX_READABLE} characters (an ellipsis marks a cut), with every
	 * control, format or unassigned character replaced by U+FFFD, followed by {@code " ~"} and the first
	 * {@value #HASH_SHOWN} characters of the hash in its store key, which tell such subjects apart.
	 * @param subject the subject as the rule resolved it
	 * @return at most {@value #MAX_READABLE} + {@value #HASH_SHOWN} + 3 characters
	 */
	public static String readable(String subject) {
		return readable(subject, Subjects.safe(subject));
	}

	private static String readable(String subject, String safe) {
		if (safe.equals(subject)) {
			return subject;
		}
		StringBuilder readable = new StringBuilder(MAX_READABLE + HASH_SHOWN + 3);
		boolean replaced = false;
		int i = 0;
		while (i < subject.length()) {
			int codePoint = subject.codePointAt(i);
			if (readable.length() + Character.charCount(codePoint) > MAX_READABLE) {
				break;
			}
			replaced |= !printable(codePoint);
			readable.appendCodePoint(printable(codePoint) ? codePoint : '\uFFFD');
			i += Character.charCount(codePoint);
		}
		boolean cut = i < subject.length();
		if (!cut && !replaced) {
			return subject;
		}
		// safe is the hash form here: '~' and the base64url SHA-256
		return readable.append(cut ? "\u2026" : "").append(" ~").append(safe, 1, 1 + HASH_SHOWN).toString();
	}

	private static boolean printable(int codePoint) {
		return switch (Character.getType(codePoint)) {
			case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED,
					Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> false;
			default -> true;
		};
	}

	/** A subject's counts in one half-window, and its readable form. */
	private static final class Counts {

		private final String subject;

		private long denials;

		private long error;

		Counts(String subject, long denials, long error) {
			this.subject = subject;
			this.denials = denials;
			this.error = error;
		}

	}

	private final class RuleSketch {

		/** Counts by the subject's key-safe form: exact identity, bounded length. */
		private Map<String, Counts> current = new HashMap<>();

		private Map<String, Counts> previous = new HashMap<>();

		private long currentStart = Long.MIN_VALUE;

		synchronized void add(String subject, long now) {
			rotate(now);
			String safe = Subjects.safe(subject);
			Counts counts = this.current.get(safe);
			if (counts != null) {
				counts.denials++;
				return;
			}
			if (this.current.size() < TopOffenders.this.capacity) {
				this.current.put(safe, new Counts(readable(subject, safe), 1, 0));
				return;
			}
			String smallest = null;
			long min = Long.MAX_VALUE;
			for (Map.Entry<String, Counts> entry : this.current.entrySet()) {
				if (entry.getValue().denials < min) {
					min = entry.getValue().denials;
					smallest = entry.getKey();
				}
			}
			this.current.remove(smallest);
			this.current.put(safe, new Counts(readable(subject, safe), min + 1, min));
		}

		synchronized List<Offender> top(int limit, long now) {
			rotate(now);
			Map<String, Counts> merged = new HashMap<>();
			for (Map<String, Counts> half : List.of(this.previous, this.current)) {
				half.forEach((safe, counts) -> {
					Counts sum = merged.computeIfAbsent(safe, (key) -> new Counts(counts.subject, 0, 0));
					sum.denials += counts.denials;
					sum.error += counts.error;
				});
			}
			List<Offender> offenders = new ArrayList<>();
			merged.values().forEach((counts) -> offenders.add(new Offender(counts.subject, counts.denials, counts.error)));
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
