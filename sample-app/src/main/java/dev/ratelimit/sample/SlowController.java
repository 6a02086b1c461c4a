package dev.ratelimit.sample;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Work that takes time, answered asynchronously so that no server thread waits:
 * <ul>
 * <li>{@code GET /api/slow?ms=N}: work of {@code N} milliseconds (default 50, at most 2000), limited by the
 * {@code slow} rule, an adaptive concurrency limit that follows its latency, and per client IP by
 * {@code slow-per-ip};</li>
 * <li>{@code GET /api/export?ms=N}: an export of {@code N} milliseconds (default 1000, at most 10000), such as a report
 * that holds a database connection while it runs, limited by the {@code export} rule: at most 2 in progress per client
 * IP, across every instance.</li>
 * </ul>
 */
@RestController
class SlowController {

	@GetMapping(path = "/api/slow", produces = MediaType.TEXT_PLAIN_VALUE)
	CompletableFuture<String> slow(@RequestParam(defaultValue = "50") long ms) {
		return after(ms, 2000, "done");
	}

	@GetMapping(path = "/api/export", produces = MediaType.TEXT_PLAIN_VALUE)
	CompletableFuture<String> export(@RequestParam(defaultValue = "1000") long ms) {
		return after(ms, 10_000, "exported");
	}

	private static CompletableFuture<String> after(long ms, long most, String what) {
		long millis = Math.max(0, Math.min(ms, most));
		return CompletableFuture.supplyAsync(() -> what + " in " + millis + " ms\n",
				CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
	}

}
