package dev.ratelimit.sample;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /}: what to try; {@code GET /api/hello}: limited per client IP by the {@code hello} rule.
 */
@RestController
class HelloController {

	private static final String HOME = """
			ratelimit sample: rules in application.yml, state in Redis

			  GET  /api/hello                        rule 'hello': 5 per 10 s per IP (gcra)
			  GET  /api/search?q=...&pageSize=N      rule 'search': per known X-API-Key, cost = pageSize; plans by key:
			                                         demo-free-key 60/min, demo-pro-key 1000/min; no or an unknown
			                                         key: 20/min per IP
			  POST /login  username=..&password=..   rules 'login-ip' (10/min per IP) and 'login-user'
			                                         (3/min per username), sliding window log; demo/demo logs in
			  GET  /api/reports/{user}               @RateLimited on ReportService.generate: 3/min per user
			  GET  /api/reports/{user}/summary       @RateLimited on ReportService.summary: 5/min per user, then
			                                         its fallback method answers (200, "fresh": false)
			  GET  /api/catalog                      rule 'catalog': 30/s per IP, warming up over 30 s from 10/s
			                                         after idleness (RateLimit-Policy states the quota in force)
			  GET  /api/slow?ms=N                    rule 'slow': as many at once as their latency allows in this
			                                         instance (adaptive-concurrency, 503 beyond); 'slow-per-ip':
			                                         600/min per IP
			  GET  /api/export?ms=N                  rule 'export': at most 2 in progress per IP, across
			                                         instances (concurrency, leases in Redis)
			  GET  /api/convert                      rule 'convert-daily': a daily quota per known X-API-Key,
			                                         reset at midnight UTC (free 50, pro 1000; else 10 per IP)
			  GET  /api/usage                        the X-API-Key's usage of 'convert-daily' (used, remaining,
			                                         resetsAt), read without spending any; ?quota=chat-tokens
			                                         for the token budget of /api/chat
			  GET  /api/chat?q=...&maxTokens=N       an "AI" endpoint (a stand-in model) that streams its answer
			                                         (SSE) and its usage; rule 'chat-tokens': a daily token budget
			                                         per X-API-Key (free 2000, pro 50000; else 500 per IP)
			  GET  /playground                       try a rule of any rate algorithm in the browser and watch
			                                         each verdict with its headers

			Try:
			  for i in $(seq 7); do curl -s -o /dev/null -w '%{http_code}\\n' localhost:8080/api/hello; done
			  curl -i -H 'X-API-Key: demo-pro-key' 'localhost:8080/api/search?q=redis&pageSize=10'
			  curl -i -d username=demo -d password=wrong localhost:8080/login
			""";

	@GetMapping(path = "/", produces = MediaType.TEXT_PLAIN_VALUE)
	String home() {
		return HOME;
	}

	/** A database-backed endpoint whose caches are cold after a quiet night: limited by the warming-up 'catalog'. */
	@GetMapping(path = "/api/catalog", produces = MediaType.TEXT_PLAIN_VALUE)
	String catalog() {
		return "catalog";
	}

	@GetMapping(path = "/api/hello", produces = MediaType.TEXT_PLAIN_VALUE)
	String hello() {
		return "hello\n";
	}

}
