package dev.ratelimit.sample;

import java.util.List;
import java.util.stream.IntStream;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code GET /api/search}: limited per known API key (else per client IP) by the {@code search} rule, whose limit
 * depends on the key's plan and whose cost is the page size.
 */
@RestController
class SearchController {

	static final int MAX_PAGE_SIZE = 100;

	private final ApiKeyPlans plans;

	SearchController(ApiKeyPlans plans) {
		this.plans = plans;
	}

	@GetMapping("/api/search")
	SearchResult search(@RequestParam(defaultValue = "") String q, @RequestParam(defaultValue = "1") int pageSize,
			@RequestHeader(name = "${ratelimit.api-key-header:X-API-Key}", required = false) String apiKey) {
		if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "pageSize must be between 1 and " + MAX_PAGE_SIZE);
		}
		String plan = this.plans.planOf(apiKey);
		List<String> results = IntStream.rangeClosed(1, pageSize).mapToObj((i) -> "result " + i + " for '" + q + "'").toList();
		return new SearchResult(q, (plan != null) ? plan : "none", pageSize, results);
	}

	record SearchResult(String query, String plan, int pageSize, List<String> results) {
	}

}
