package dev.ratelimit.actuate;

import java.security.Principal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.ratelimit.store.RateLimitStoreException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * HTTP status codes for {@link RateLimitsEndpoint}: 404 for an unknown rule (or tier), 400 with the reason for an
 * invalid override or exception (or a {@code ?zone=} that is not an IANA zone id), 503 when the store cannot be reached to inspect or reset a subject. It also routes
 * {@code GET .../{rule}/exceptions} and {@code DELETE .../{rule}/exceptions/{subject}}, which share their paths with a
 * subject's inspection and reset: a subject named {@code exceptions} is inspected only with {@code ?tier=}, and one
 * starting with {@code exceptions/} is not reset through this endpoint. Under {@value RateLimitsEndpoint#LISTS} it
 * adds ({@code POST .../lists/deny}) and removes ({@code DELETE .../lists/deny?entry=...}) entries of the allow and
 * deny lists; each change of a list or of a per-subject exception is logged with who made it.
 * <p>
 * A subject may contain '/' (a composite key, an IPv6 network), so it is the path's remaining segments after the
 * rule's. Spring MVC hands those segments alone; WebFlux hands them with the rule's segment in front (its
 * {@code PathPattern#extractPathWithinPattern} starts at the pattern's first variable, {@code {rule}}), which this
 * extension drops when it serves a reactive application.
 */
@EndpointWebExtension(endpoint = RateLimitsEndpoint.class)
public class RateLimitsEndpointWebExtension {

	private static final Log logger = LogFactory.getLog(RateLimitsEndpointWebExtension.class);

	private final RateLimitsEndpoint endpoint;

	private final boolean remainingPathStartsWithRule;

	/**
	 * Creates the extension of a Spring MVC application.
	 * @param endpoint the endpoint
	 */
	public RateLimitsEndpointWebExtension(RateLimitsEndpoint endpoint) {
		this(endpoint, false);
	}

	/**
	 * Creates the extension.
	 * @param endpoint the endpoint
	 * @param reactive whether it serves a WebFlux application, whose remaining path starts with the rule's segment
	 */
	public RateLimitsEndpointWebExtension(RateLimitsEndpoint endpoint, boolean reactive) {
		this.endpoint = endpoint;
		this.remainingPathStartsWithRule = reactive;
	}

	@ReadOperation
	public WebEndpointResponse<Object> rule(@Selector String name) {
		return orNotFound(this.endpoint.rule(name));
	}

	@ReadOperation
	public WebEndpointResponse<Object> subject(@Selector String rule,
			@Selector(match = Selector.Match.ALL_REMAINING) String[] remaining, @Nullable String tier,
			@Nullable String zone) {
		String[] key = afterRule(remaining);
		if (key.length == 1 && RateLimitsEndpoint.EXCEPTIONS.equals(key[0]) && tier == null) {
			return orNotFound(this.endpoint.exceptions(rule));
		}
		try {
			return orNotFound(this.endpoint.subject(rule, key, tier, zone));
		}
		catch (RateLimitStoreException ex) {
			return unavailable(ex);
		}
		catch (RateLimitsEndpoint.InvalidOverrideException ex) {
			return badRequest(ex);
		}
	}

	@DeleteOperation
	public WebEndpointResponse<Object> reset(@Selector String rule,
			@Selector(match = Selector.Match.ALL_REMAINING) String[] remaining, @Nullable String entry,
			SecurityContext securityContext) {
		String[] key = afterRule(remaining);
		RateLimitListsAdmin lists = this.endpoint.lists();
		String list = (key.length == 1) ? key[0] : null;
		if (RateLimitsEndpoint.LISTS.equals(rule) && list != null && lists != null) {
			try {
				return orNotFound(lists.remove(list, entry, who(securityContext)));
			}
			catch (RateLimitsEndpoint.InvalidOverrideException ex) {
				return badRequest(ex);
			}
		}
		if (key.length > 1 && RateLimitsEndpoint.EXCEPTIONS.equals(key[0])) {
			try {
				String[] subject = Arrays.copyOfRange(key, 1, key.length);
				Object removed = this.endpoint.removeException(rule, subject);
				if (removed != null) {
					logger.info("Rate limit rule '" + rule + "': the exception of '" + String.join("/", subject)
							+ "' removed by " + who(securityContext));
				}
				return orNotFound(removed);
			}
			catch (RateLimitsEndpoint.InvalidOverrideException ex) {
				return badRequest(ex);
			}
		}
		try {
			return orNotFound(this.endpoint.reset(rule, key));
		}
		catch (RateLimitStoreException ex) {
			return unavailable(ex);
		}
	}

	/** The segments of a remaining path after the rule's: the subject's, or {@code exceptions} and the subject's. */
	private String[] afterRule(String[] remaining) {
		return (this.remainingPathStartsWithRule && remaining.length > 0)
				? Arrays.copyOfRange(remaining, 1, remaining.length) : remaining;
	}

	@WriteOperation
	public WebEndpointResponse<Object> override(@Selector String rule, @Nullable Long limit, @Nullable String period,
			@Nullable Long burst, @Nullable String mode) {
		try {
			return orNotFound(this.endpoint.override(rule, limit, period, burst, mode));
		}
		catch (RateLimitsEndpoint.InvalidOverrideException ex) {
			return badRequest(ex);
		}
	}

	/**
	 * Adds a per-subject exception of a rule ({@code POST .../{rule}/exceptions} with {@code subject} and
	 * {@code limit}), or an entry of the allow or deny list ({@code POST .../lists/{list}} with {@code entry}, and
	 * optionally {@code ttl} and, for the allow list, {@code rules}).
	 */
	@WriteOperation
	public WebEndpointResponse<Object> addException(@Selector String rule, @Selector String section,
			@Nullable String subject, @Nullable Long limit, @Nullable String entry, @Nullable String ttl,
			@Nullable String rules, SecurityContext securityContext) {
		RateLimitListsAdmin lists = this.endpoint.lists();
		boolean listed = RateLimitsEndpoint.LISTS.equals(rule) && lists != null
				&& !RateLimitsEndpoint.EXCEPTIONS.equals(section);
		String misplaced = listed ? ((subject != null) ? "subject" : (limit != null) ? "limit" : null)
				: (entry != null) ? "entry" : (ttl != null) ? "ttl" : (rules != null) ? "rules" : null;
		if (misplaced != null) {
			return badRequest(new RateLimitsEndpoint.InvalidOverrideException("unknown field '" + misplaced
					+ "'; the fields are " + (listed ? "entry, ttl, rules" : "subject, limit")));
		}
		try {
			if (listed) {
				return new WebEndpointResponse<>(lists.add(section, entry, ttl, ruleNames(rules), who(securityContext)));
			}
			Object exceptions = this.endpoint.addException(rule, section, subject, limit);
			if (exceptions != null) {
				logger.info("Rate limit rule '" + rule + "': the exception of '" + subject + "' set to " + limit
						+ " by " + who(securityContext));
			}
			return orNotFound(exceptions);
		}
		catch (RateLimitsEndpoint.InvalidOverrideException ex) {
			return badRequest(ex);
		}
	}

	/**
	 * The rules of an allow entry: Actuator reads a write's body as strings, so a JSON array ({@code ["api", "login"]})
	 * arrives joined with commas by {@link ListsRequestBodyAdvice}, and the same comma-separated form may be sent.
	 */
	private static @Nullable List<String> ruleNames(@Nullable String rules) {
		if (rules == null) {
			return null;
		}
		return Arrays.stream(rules.split(",")).map(String::trim).filter((rule) -> !rule.isEmpty()).toList();
	}

	/** Who made a change, for the log: the authenticated principal's name when there is one. */
	static String who(SecurityContext securityContext) {
		Principal principal = securityContext.getPrincipal();
		return (principal != null) ? "'" + principal.getName() + "'" : "an unauthenticated caller";
	}

	private static WebEndpointResponse<Object> badRequest(RateLimitsEndpoint.InvalidOverrideException ex) {
		return new WebEndpointResponse<>(Map.of("error", "Bad Request", "status", 400, "reason", ex.getMessage()),
				WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	@DeleteOperation
	public WebEndpointResponse<Object> removeOverride(@Selector String rule) {
		return orNotFound(this.endpoint.removeOverride(rule));
	}

	private static WebEndpointResponse<Object> unavailable(RateLimitStoreException ex) {
		return new WebEndpointResponse<>(Map.of("error", "Service Unavailable", "status", 503, "reason",
				String.valueOf(ex.getMessage())), WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
	}

	private static WebEndpointResponse<Object> orNotFound(@Nullable Object body) {
		return (body != null) ? new WebEndpointResponse<>(body) : new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

}
