package dev.ratelimit.adaptive;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.ratelimit.Completion.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * Creates {@link ConcurrencyLimiter}s on Netflix's {@code concurrency-limits} library: a {@code SimpleLimiter} (a
 * semaphore whose size follows the limit) over the strategy's {@code Limit}, sampling every request. The only class
 * that links to the library, so that it is needed only when an adaptive rule exists.
 */
public final class NetflixConcurrencyLimiters {

	private NetflixConcurrencyLimiters() {
	}

	/**
	 * Creates the limits of adaptive rules.
	 * @param rules the rules
	 * @param nanoClock the time in nanoseconds ({@code System::nanoTime}), which request latency is measured with
	 * @return one limit per rule
	 */
	public static AdaptiveConcurrencyLimits limits(List<AdaptiveConcurrencyRule> rules, LongSupplier nanoClock) {
		return new AdaptiveConcurrencyLimits(rules.stream()
			.map((rule) -> new AdaptiveConcurrencyLimit(rule, create(rule.name(), rule.settings(), nanoClock)))
			.toList());
	}

	/**
	 * Creates a limiter.
	 * @param name the rule name
	 * @param settings how the limit adapts
	 * @param nanoClock the time in nanoseconds ({@code System::nanoTime}), which request latency is measured with
	 * @return the limiter
	 */
	public static ConcurrencyLimiter create(String name, AdaptiveSettings settings, LongSupplier nanoClock) {
		SimpleLimiter<Void> limiter = SimpleLimiter.newBuilder()
			.named(name)
			.limit(limit(settings))
			.nanoClock(nanoClock)
			.build();
		return new NetflixLimiter(limiter);
	}

	private static Limit limit(AdaptiveSettings settings) {
		return switch (settings.strategy()) {
			case GRADIENT2 -> Gradient2Limit.newBuilder()
				.initialLimit(settings.initialLimit())
				.minLimit(settings.minLimit())
				.maxConcurrency(settings.maxLimit())
				.build();
			case VEGAS -> new AtLeast(VegasLimit.newBuilder()
				.initialLimit(settings.initialLimit())
				.maxConcurrency(settings.maxLimit())
				.build(), settings.minLimit());
			case AIMD -> AIMDLimit.newBuilder()
				.initialLimit(settings.initialLimit())
				.minLimit(settings.minLimit())
				.maxLimit(settings.maxLimit())
				.build();
		};
	}

	private record NetflixLimiter(SimpleLimiter<Void> limiter) implements ConcurrencyLimiter {

		@Override
		public @Nullable Permit tryAcquire() {
			Optional<Limiter.Listener> listener = this.limiter.acquire(null);
			return listener.<Permit>map(NetflixPermit::new).orElse(null);
		}

		@Override
		public int limit() {
			return this.limiter.getLimit();
		}

		@Override
		public int inFlight() {
			return this.limiter.getInflight();
		}

	}

	/** Releases the library's listener once, as the library intends for each outcome. */
	private static final class NetflixPermit implements ConcurrencyLimiter.Permit {

		private final Limiter.Listener listener;

		private final AtomicBoolean released = new AtomicBoolean();

		NetflixPermit(Limiter.Listener listener) {
			this.listener = listener;
		}

		@Override
		public void release(Outcome outcome) {
			if (!this.released.compareAndSet(false, true)) {
				return;
			}
			switch (outcome) {
				case COMPLETED -> this.listener.onSuccess();
				case TIMED_OUT -> this.listener.onDropped();
				// no latency worth learning from: the request failed early, the client left, or a later check denied it
				case FAILED, ABORTED, REJECTED -> this.listener.onIgnore();
			}
		}

	}

	/**
	 * Holds a limit at or above a floor: {@code VegasLimit} has no minimum of its own (it goes down to 1), so the limit
	 * the limiter applies is its estimate, raised to the floor.
	 */
	private record AtLeast(Limit delegate, int floor) implements Limit {

		@Override
		public int getLimit() {
			return Math.max(this.floor, this.delegate.getLimit());
		}

		@Override
		public void notifyOnChange(Consumer<Integer> consumer) {
			this.delegate.notifyOnChange((limit) -> consumer.accept(Math.max(this.floor, limit)));
		}

		@Override
		public void onSample(long startTime, long rtt, int inflight, boolean didDrop) {
			this.delegate.onSample(startTime, rtt, inflight, didDrop);
		}

	}

}
