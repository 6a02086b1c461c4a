package dev.ratelimit.observation;

/**
 * An adapter that asks the limiter for decisions (a filter, the {@code @RateLimited} aspect, the gateway, outbound
 * clients) and can observe them. The auto-configuration hands every such bean the application's
 * {@link RateLimitObservations}.
 */
public interface RateLimitObservationAware {

	/**
	 * Sets the observations of this adapter's decisions and waits (none by default).
	 * @param observations the observations
	 */
	void setObservations(RateLimitObservations observations);

}
