package dev.ratelimit.sample;

import java.time.Instant;
import java.util.List;

import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.store.RateLimitStoreException;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code GET /api/convert}: limited per known API key by the daily quota {@code convert-daily} (calendar: day, reset
 * at midnight UTC); {@code GET /api/usage}: the caller's usage of that quota (or, with {@code ?quota=chat-tokens}, of
 * the token budget of {@code GET /api/chat}), read without spending any of it (503 while the store cannot be read).
 */
@RestController
class UsageController {

	static final String QUOTA = "convert-daily";

	/** The quotas a customer may read: the conversions', and the token budget of {@code GET /api/chat}. */
	static final List<String> QUOTAS = List.of(QUOTA, "chat-tokens");

	private final ObjectProvider<RateLimitUsage> usage;

	private final ApiKeyPlans plans;

	/**
	 * The usage bean is absent with {@code ratelimit.enabled=false}: the sample still starts, and {@code /api/usage}
	 * says there is nothing to read.
	 */
	UsageController(ObjectProvider<RateLimitUsage> usage, ApiKeyPlans plans) {
		this.usage = usage;
		this.plans = plans;
	}

	@GetMapping(path = "/api/convert", produces = MediaType.TEXT_PLAIN_VALUE)
	String convert() {
		return "converted\n";
	}

	@GetMapping("/api/usage")
	Usage usage(@RequestHeader(name = "${ratelimit.api-key-header:X-API-Key}", required = false) String apiKey,
			@RequestParam(name = "quota", defaultValue = QUOTA) String quotaName) {
		String plan = this.plans.planOf(apiKey);
		if (plan == null) {
			throw new ResponseStatusException(HttpStatus.UNAUTHORIZED, "send a known X-API-Key to see its usage");
		}
		if (!QUOTAS.contains(quotaName)) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "quota must be one of " + QUOTAS);
		}
		RateLimitUsage usage = this.usage.getIfAvailable();
		if (usage == null) {
			throw new ResponseStatusException(HttpStatus.NOT_FOUND, "the limiter is off (ratelimit.enabled=false)");
		}
		QuotaUsage quota;
		try {
			quota = usage.of(quotaName, apiKey, plan).orElseThrow();
		}
		catch (RateLimitStoreException ex) {
			// a usage is what the store holds: there is nothing to fall back on, so say so instead of a 500
			throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE,
					"the usage cannot be read while the quota store is unavailable; try again shortly", ex);
		}
		return new Usage(quotaName, plan, quota.limit(), quota.used(), quota.remaining(), quota.resetsAt());
	}

	/** What a customer sees: the quota, their plan, and when it resets. */
	record Usage(String quota, String plan, long limit, long used, long remaining, Instant resetsAt) {
	}

}
