package dev.ratelimit.adaptive;

import java.util.List;

import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.adaptive.ConcurrencyLimiter.Permit;
import org.jspecify.annotations.Nullable;

/**
 * The answer of the adaptive rules that apply to a request: the places it took, to release when it ends, or the
 * denial of a limit that was reached (and then it holds no place).
 */
public final class AdaptiveAdmission {

	private final List<Permit> permits;

	private final @Nullable AdaptiveDenial denial;

	private AdaptiveAdmission(List<Permit> permits, @Nullable AdaptiveDenial denial) {
		this.permits = permits;
		this.denial = denial;
	}

	static AdaptiveAdmission admitted(List<Permit> permits) {
		return new AdaptiveAdmission(List.copyOf(permits), null);
	}

	static AdaptiveAdmission denied(AdaptiveDenial denial) {
		return new AdaptiveAdmission(List.of(), denial);
	}

	/** Returns whether every enforced adaptive rule admitted the request. */
	public boolean admitted() {
		return this.denial == null;
	}

	/** Returns the denial, or {@code null} when admitted. */
	public @Nullable AdaptiveDenial denial() {
		return this.denial;
	}

	/**
	 * Releases every place the request took; only the first call counts.
	 * @param outcome how the request ended
	 */
	public void release(Outcome outcome) {
		for (Permit permit : this.permits) {
			permit.release(outcome);
		}
	}

}
