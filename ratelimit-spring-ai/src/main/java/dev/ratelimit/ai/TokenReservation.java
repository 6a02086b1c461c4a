package dev.ratelimit.ai;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.Consumption;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.support.UsageCalculator;

/**
 * The tokens one admitted chat call reserved, and the usage its model reported so far: settled once, when the call
 * ends, with the usage last reported (a stream's models report the running total, in its last chunk at the latest),
 * or left at the estimate when none was reported.
 */
final class TokenReservation {

	private final Verdict verdict;

	private final AtomicReference<@Nullable Usage> usage = new AtomicReference<>();

	private final AtomicBoolean settled = new AtomicBoolean();

	TokenReservation(Verdict verdict) {
		this.verdict = verdict;
	}

	/** Remembers the usage a response or a stream's chunk reports, if it reports one. */
	void observe(@Nullable ChatClientResponse response) {
		ChatResponse chatResponse = (response != null) ? response.chatResponse() : null;
		Usage reported = (chatResponse != null) ? chatResponse.getMetadata().getUsage() : null;
		if (!UsageCalculator.isEmpty(reported)) {
			this.usage.set(reported);
		}
	}

	/** Returns the usage last reported, or {@code null}. */
	@Nullable Usage usage() {
		return this.usage.get();
	}

	/**
	 * Returns the settlements of this call, the first time only (a call ends once; a later end of the same call
	 * settles nothing): empty when no usage was reported, so that the estimate stays charged, and when the estimate
	 * was exact.
	 * @param tokens what a usage counts
	 * @return the settlements, one per consumption of the verdict
	 */
	List<Settlement> settlements(UsageTokens tokens) {
		if (!this.settled.compareAndSet(false, true)) {
			return List.of();
		}
		long actual = tokens.count(this.usage.get());
		if (actual < 0) {
			return List.of();
		}
		List<Consumption> consumptions = this.verdict.consumptions();
		List<Settlement> settlements = new ArrayList<>(consumptions.size());
		for (Consumption consumption : consumptions) {
			if (consumption.cost() != actual) {
				// an exact estimate has nothing to settle: no call to the store
				settlements.add(new Settlement(consumption, actual));
			}
		}
		return settlements;
	}

}
