package dev.ratelimit.sample;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/reports/{user}}: limited by the {@code @RateLimited} annotation on {@link ReportService};
 * {@code GET /api/reports/{user}/summary}: the same, with a fallback instead of a 429.
 */
@RestController
class ReportController {

	private final ReportService reports;

	ReportController(ReportService reports) {
		this.reports = reports;
	}

	@GetMapping("/api/reports/{user}/summary")
	ReportService.Summary summary(@PathVariable String user) {
		return this.reports.summary(user);
	}

	@GetMapping("/api/reports/{user}")
	ReportService.Report report(@PathVariable String user) {
		return this.reports.generate(user);
	}

}
