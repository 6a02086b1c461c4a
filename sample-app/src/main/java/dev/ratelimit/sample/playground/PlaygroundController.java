package dev.ratelimit.sample.playground;

import java.util.List;
import java.util.Locale;

import dev.ratelimit.Algorithm;
import dev.ratelimit.actuate.RateLimitsEndpoint;
import dev.ratelimit.actuate.RateLimitsEndpoint.InvalidOverrideException;
import dev.ratelimit.actuate.RateLimitsEndpoint.RuleDescriptor;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The playground's server side. Each rate algorithm has a rule of its own in application.yml,
 * {@code try-<algorithm>}, limiting {@code GET /playground/demo/<algorithm>} per client IP. {@code POST
 * /playground/rule} changes that rule's limit, period and burst through the {@code ratelimits} actuator endpoint's own
 * operations (an override shared through Redis, as {@code POST /actuator/ratelimits/<rule>} does), and resets the
 * caller's state under it so that the timeline starts from a full quota. Only the playground's rules can be changed
 * here: the algorithm is one of a fixed list, never a rule name from the request.
 */
@RestController
class PlaygroundController {

	/** The algorithms the playground offers, each with its rule {@code try-<algorithm>}. */
	static final List<Algorithm> ALGORITHMS = List.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET,
			Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_LOG, Algorithm.SLIDING_WINDOW_COUNTER);

	private final ObjectProvider<RateLimitsEndpoint> endpoint;

	/**
	 * @param endpoint the actuator endpoint, absent when it is not exposed (the playground then answers 503)
	 */
	PlaygroundController(ObjectProvider<RateLimitsEndpoint> endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * What the page asks for.
	 * @param algorithm an algorithm's name, e.g. {@code gcra}
	 * @param limit units per period
	 * @param period e.g. {@code 10s}
	 * @param burst the bucket's capacity (bucket algorithms only), or {@code null} for the limit
	 */
	record PlaygroundRule(String algorithm, long limit, String period, @Nullable Long burst) {
	}

	@PostMapping(path = "/playground/rule", consumes = MediaType.APPLICATION_JSON_VALUE)
	RuleDescriptor apply(@RequestBody PlaygroundRule rule, HttpServletRequest request) {
		Algorithm algorithm = ALGORITHMS.stream()
			.filter((candidate) -> candidate.configName().equals(rule.algorithm()))
			.findFirst()
			.orElseThrow(() -> new InvalidOverrideException("algorithm '" + rule.algorithm() + "' is not one of "
					+ ALGORITHMS.stream().map(Algorithm::configName).toList()));
		String name = ruleName(algorithm);
		// a window algorithm has no burst: 0 keeps its default (the limit)
		Long burst = algorithm.usesBurst() ? rule.burst() : null;
		RateLimitsEndpoint endpoint = this.endpoint.getIfAvailable();
		if (endpoint == null) {
			throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "the playground changes its rules through"
					+ " the 'ratelimits' actuator endpoint: add it to management.endpoints.web.exposure.include");
		}
		RuleDescriptor applied = endpoint.override(name, rule.limit(), rule.period(), burst, null);
		if (applied == null) {
			throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "no rule '" + name + "' in application.yml");
		}
		endpoint.reset(name, new String[] { request.getRemoteAddr() });
		return applied;
	}

	@GetMapping(path = "/playground/demo/{algorithm}", produces = MediaType.TEXT_PLAIN_VALUE)
	String demo(@PathVariable String algorithm) {
		return "admitted by rule try-" + algorithm + "\n";
	}

	@ExceptionHandler(ResponseStatusException.class)
	ResponseEntity<ProblemDetail> unavailable(ResponseStatusException ex) {
		return ResponseEntity.status(ex.getStatusCode())
			.body(ProblemDetail.forStatusAndDetail(ex.getStatusCode(), String.valueOf(ex.getReason())));
	}

	@ExceptionHandler(InvalidOverrideException.class)
	ResponseEntity<ProblemDetail> invalid(InvalidOverrideException ex) {
		return ResponseEntity.badRequest().body(ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage()));
	}

	static String ruleName(Algorithm algorithm) {
		return "try-" + algorithm.configName().toLowerCase(Locale.ROOT);
	}

}
