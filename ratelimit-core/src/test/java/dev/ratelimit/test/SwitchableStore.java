package dev.ratelimit.test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RateLimitStoreException;

/**
 * A store that can be switched to fail like an unreachable Redis, and counts its calls. For unit tests of the logic
 * around a store; tests of Redis itself use a real, killed Redis.
 */
public final class SwitchableStore implements RateLimitStore {

	private final RateLimitStore delegate;

	private final AtomicInteger calls = new AtomicInteger();

	private volatile boolean failing;

	public SwitchableStore(RateLimitStore delegate) {
		this.delegate = delegate;
	}

	public void setFailing(boolean failing) {
		this.failing = failing;
	}

	public int calls() {
		return this.calls.get();
	}

	@Override
	public List<Decision> evaluate(List<RateLimitCheck> checks) {
		call();
		return this.delegate.evaluate(checks);
	}

	@Override
	public List<Decision> peek(List<RateLimitCheck> checks) {
		call();
		return this.delegate.peek(checks);
	}

	private void call() {
		this.calls.incrementAndGet();
		if (this.failing) {
			throw new RateLimitStoreException("store is down", new IllegalStateException());
		}
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		call();
		return this.delegate.release(leases);
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		call();
		return this.delegate.renew(leases);
	}

	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		call();
		return this.delegate.settle(settlements);
	}

	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		this.delegate.reset(policy, subject);
	}

}
