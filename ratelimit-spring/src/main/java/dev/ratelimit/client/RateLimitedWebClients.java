package dev.ratelimit.client;

import java.util.Objects;

/**
 * Applies named rules from {@code application.yml} to the calls of a {@code WebClient}, as
 * {@link RateLimitedClients} does for {@code RestClient} and {@code RestTemplate}, and with the same
 * {@link RateLimitedClients#pausedFor pauses}:
 * <pre class="code">
 * WebClient payments = WebClient.builder()
 *     .baseUrl("https://api.payments.example")
 *     .filter(rateLimitedWebClients.filter("payments-api"))
 *     .build();
 * </pre>
 * A separate type so that {@link RateLimitedClients} loads without WebFlux.
 */
public class RateLimitedWebClients {

	private final RateLimitedClients clients;

	/**
	 * @param clients the outbound limits whose rules, limiter and pauses the filters share
	 */
	public RateLimitedWebClients(RateLimitedClients clients) {
		this.clients = clients;
	}

	/**
	 * Returns a filter that applies a rule to each call, the call's subject being its target's host.
	 * @param rule the rule's name
	 * @return the filter
	 * @throws IllegalArgumentException when there is no such rule or it cannot limit outbound calls
	 */
	public RateLimitExchangeFilter filter(String rule) {
		this.clients.check(rule);
		return new RateLimitExchangeFilter(this.clients, rule, null);
	}

	/**
	 * Returns a filter that applies a rule to each call under one subject, whatever its target.
	 * @param rule the rule's name
	 * @param subject the subject of every call
	 * @return the filter
	 * @throws IllegalArgumentException when there is no such rule or it cannot limit outbound calls
	 */
	public RateLimitExchangeFilter filter(String rule, String subject) {
		this.clients.check(rule);
		return new RateLimitExchangeFilter(this.clients, rule, Objects.requireNonNull(subject, "subject"));
	}

}
