package dev.ratelimit.lease;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Completion;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Releases the concurrency leases a verdict acquired when the request or call it admitted ends, however it ends
 * (registered by the auto-configuration as an {@link AdmissionListener}). A lease that cannot be released (the store
 * is unreachable) expires after its rule's {@code lease-timeout}.
 */
public final class LeaseRelease implements AdmissionListener {

	private static final Log logger = LogFactory.getLog(LeaseRelease.class);

	private final RateLimiter limiter;

	public LeaseRelease(RateLimiter limiter) {
		this.limiter = limiter;
	}

	/** Returns whether the verdict holds leases: only then is the request followed to its end. */
	@Override
	public boolean wants(Verdict verdict) {
		return !verdict.leases().isEmpty();
	}

	@Override
	public void onAdmitted(Verdict verdict, Completion completion) {
		List<Lease> leases = verdict.leases();
		if (completion.isNonBlocking()) {
			completion.onEnd((outcome) -> releaseAsync(this.limiter, leases));
		}
		else {
			completion.onEnd((outcome) -> release(this.limiter, leases));
		}
	}

	/**
	 * {@link #releaseDenied} without blocking the caller: the release is sent, and a failure logged when it completes.
	 * @param limiter the limiter that decided
	 * @param verdict the denied verdict
	 */
	public static void releaseDeniedAsync(RateLimiter limiter, Verdict verdict) {
		List<Lease> leases = verdict.leases();
		if (!leases.isEmpty()) {
			releaseAsync(limiter, leases);
		}
	}

	private static void releaseAsync(RateLimiter limiter, List<Lease> leases) {
		CompletableFuture<List<Boolean>> released;
		try {
			released = limiter.releaseAsync(leases);
		}
		catch (RuntimeException ex) {
			released = CompletableFuture.failedFuture(ex);
		}
		released.whenComplete((result, ex) -> {
			if (ex != null) {
				logger.warn(notReleased(leases), ex);
			}
		});
	}

	private static String notReleased(List<Lease> leases) {
		return "Could not release " + leases.size() + " concurrency lease(s); they expire after their rule's"
				+ " lease-timeout";
	}

	/**
	 * Releases at once what a denied verdict still holds (normally nothing: a denied request acquires no lease, but
	 * a Redis Cluster refund that failed leaves its leases in the verdict).
	 * @param limiter the limiter that decided
	 * @param verdict the denied verdict
	 */
	public static void releaseDenied(RateLimiter limiter, Verdict verdict) {
		List<Lease> leases = verdict.leases();
		if (!leases.isEmpty()) {
			release(limiter, leases);
		}
	}

	private static void release(RateLimiter limiter, List<Lease> leases) {
		try {
			limiter.release(leases);
		}
		catch (RuntimeException ex) {
			logger.warn(notReleased(leases), ex);
		}
	}

}
