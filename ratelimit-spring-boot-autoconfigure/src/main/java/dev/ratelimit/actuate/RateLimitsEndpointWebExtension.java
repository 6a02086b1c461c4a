package dev.ratelimit.actuate;

import java.util.Arrays;
import java.util.Map;

import dev.ratelimit.store.RateLimitStoreException;
import org.jspecify.annotations.Nullable;

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
 * starting with {@code exceptions/} is not reset through this endpoint.
 */
@EndpointWebExtension(endpoint = RateLimitsEndpoint.class)
public class RateLimitsEndpointWebExtension {

	private final RateLimitsEndpoint endpoint;

	public RateLimitsEndpointWebExtension(RateLimitsEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	@ReadOperation
	public WebEndpointResponse<Object> rule(@Selector String name) {
		return orNotFound(this.endpoint.rule(name));
	}

	@ReadOperation
	public WebEndpointResponse<Object> subject(@Selector String rule,
			@Selector(match = Selector.Match.ALL_REMAINING) String[] key, @Nullable String tier,
			@Nullable String zone) {
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
			@Selector(match = Selector.Match.ALL_REMAINING) String[] key) {
		if (key.length > 1 && RateLimitsEndpoint.EXCEPTIONS.equals(key[0])) {
			try {
				return orNotFound(this.endpoint.removeException(rule, Arrays.copyOfRange(key, 1, key.length)));
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

	@WriteOperation
	public WebEndpointResponse<Object> addException(@Selector String rule, @Selector String section,
			@Nullable String subject, @Nullable Long limit) {
		try {
			return orNotFound(this.endpoint.addException(rule, section, subject, limit));
		}
		catch (RateLimitsEndpoint.InvalidOverrideException ex) {
			return badRequest(ex);
		}
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
