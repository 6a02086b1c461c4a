package dev.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * Resolves whose quota a request uses (its subject), e.g. the client IP or the API key. Declare one as a bean and
 * refer to it from a rule as {@code key: "@beanName"}; also used for tiers ({@code tier-key: "@beanName"}).
 * <p>
 * Any string is a valid subject: long or unusual ones are hashed before they reach a store key. A lambda reads the
 * request with the Servlet API's method names, e.g. {@code (request) -> request.getHeader("X-Tenant")}, on every web
 * stack.
 */
@FunctionalInterface
public interface KeyResolver {

	/**
	 * Resolves the subject of a request.
	 * @param request the request
	 * @return the subject, or {@code null} when the rule does not apply to this request
	 */
	@Nullable String resolve(RateLimitRequest request);

}
