package dev.ratelimit.adaptive;

import java.util.Locale;

/** How an adaptive concurrency limit follows latency; each is the library's algorithm of that name. */
public enum AdaptiveStrategy {

	/**
	 * Netflix's {@code Gradient2Limit}: compares the latency of each request with a long-term average and shrinks the
	 * limit when it rises by more than half, grows it while it does not. Follows a rising baseline.
	 */
	GRADIENT2,

	/**
	 * Netflix's {@code VegasLimit} (TCP Vegas): estimates the queue from the lowest latency seen and the current one,
	 * grows while the queue is short and shrinks when it grows; probes the lowest latency again from time to time.
	 */
	VEGAS,

	/**
	 * Netflix's {@code AIMDLimit}: grows by one while busy, shrinks by 10% on a drop (an asynchronous request that timed
	 * out, or a request slower than 5 s); does not look at latency otherwise.
	 */
	AIMD;

	/** Returns the name used in configuration, e.g. {@code gradient2}. */
	public String configName() {
		return name().toLowerCase(Locale.ROOT);
	}

}
