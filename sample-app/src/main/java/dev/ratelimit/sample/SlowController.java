package dev.ratelimit.sample;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/slow?ms=N}: work that takes {@code N} milliseconds (default 50, at most 2000), answered
 * asynchronously so that no server thread waits. Limited by the {@code slow} rule, an adaptive concurrency limit that
 * follows its latency, and per client IP by {@code slow-per-ip}.
 */
@RestController
class SlowController {

	@GetMapping(path = "/api/slow", produces = MediaType.TEXT_PLAIN_VALUE)
	CompletableFuture<String> slow(@RequestParam(defaultValue = "50") long ms) {
		long millis = Math.max(0, Math.min(ms, 2000));
		return CompletableFuture.supplyAsync(() -> "done in " + millis + " ms\n",
				CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
	}

}
