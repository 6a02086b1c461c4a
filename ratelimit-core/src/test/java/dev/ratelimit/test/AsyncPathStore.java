package dev.ratelimit.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.store.RateLimitStore;
import org.jspecify.annotations.Nullable;

/**
 * A store whose blocking forms call the non-blocking forms of another and wait for them, so that the store contract
 * suite runs over the non-blocking path of every store. A failed future rethrows its cause as it is.
 */
public final class AsyncPathStore implements RateLimitStore {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final RateLimitStore delegate;

	public AsyncPathStore(RateLimitStore delegate) {
		this.delegate = delegate;
	}

	@Override
	public List<Decision> evaluate(List<RateLimitCheck> checks) {
		return join(this.delegate.evaluateAsync(checks));
	}

	@Override
	public List<Decision> peek(List<RateLimitCheck> checks) {
		return join(this.delegate.peekAsync(checks));
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		return join(this.delegate.releaseAsync(leases));
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return join(this.delegate.renewAsync(leases));
	}

	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		return join(this.delegate.refundAsync(consumptions));
	}

	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		return join(this.delegate.settleAsync(settlements));
	}

	@Override
	public void cancel(List<RateLimitCheck> checks) {
		join(this.delegate.cancelAsync(checks));
	}

	@Override
	public @Nullable Duration timeout() {
		return this.delegate.timeout();
	}

	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		this.delegate.reset(policy, subject);
	}

	private static <T> T join(CompletableFuture<T> future) {
		try {
			return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new IllegalStateException(ex.getCause());
		}
		catch (InterruptedException | TimeoutException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
