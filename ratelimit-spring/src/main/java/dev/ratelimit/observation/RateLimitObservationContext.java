package dev.ratelimit.observation;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.Verdict;
import dev.ratelimit.store.StoreState;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of a rate limit decision, or of the wait for a reserved slot, knows: the checks (their rules,
 * never their subjects), who asked, the store and its state, and once known the verdict.
 */
public class RateLimitObservationContext extends Observation.Context {

	private final List<RateLimitCheck> checks;

	private final String caller;

	private final String store;

	private StoreState storeState;

	private @Nullable Verdict verdict;

	/**
	 * Creates a context.
	 * @param checks the checks of the decision
	 * @param caller who asks: {@code servlet}, {@code webflux}, {@code method}, {@code gateway} or {@code outbound}
	 * @param store the store that decides, e.g. {@code redis} or {@code local}
	 * @param storeState who decides when the decision starts
	 */
	public RateLimitObservationContext(List<RateLimitCheck> checks, String caller, String store,
			StoreState storeState) {
		this.checks = checks;
		this.caller = caller;
		this.store = store;
		this.storeState = storeState;
	}

	/** Returns the checks of the decision. */
	public List<RateLimitCheck> getChecks() {
		return this.checks;
	}

	/** Returns who asks: {@code servlet}, {@code webflux}, {@code method}, {@code gateway} or {@code outbound}. */
	public String getCaller() {
		return this.caller;
	}

	/** Returns the store that decides, e.g. {@code redis} or {@code local}. */
	public String getStore() {
		return this.store;
	}

	/** Returns who decides: the store, or the fallback while it is unavailable (as seen when the decision ended). */
	public StoreState getStoreState() {
		return this.storeState;
	}

	/** Sets who decides. */
	public void setStoreState(StoreState storeState) {
		this.storeState = storeState;
	}

	/** Returns the verdict, or {@code null} before it is known (or when the decision failed). */
	public @Nullable Verdict getVerdict() {
		return this.verdict;
	}

	/** Sets the verdict. */
	public void setVerdict(Verdict verdict) {
		this.verdict = verdict;
	}

	/** Returns how long the request waits for its reserved slot; zero when it does not wait or is not decided. */
	public Duration getDelay() {
		return (this.verdict != null) ? this.verdict.delay() : Duration.ZERO;
	}

	/** Returns the outcome of the decision, or {@code null} while it is not known. */
	public @Nullable DecisionOutcome getOutcome() {
		if (this.verdict == null) {
			return (getError() != null) ? DecisionOutcome.ERROR : null;
		}
		return DecisionOutcome.of(this.verdict, this.storeState);
	}

}
