package dev.ratelimit.migration.examples.bucket4j;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application the bucket4j example of docs/migrating.md starts with: an endpoint under {@code /api/**}. Outside
 * the sample's package, so that the sample's own tests never scan it.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class Bucket4jExampleApplication {

	@RestController
	static class OrdersController {

		@GetMapping("/api/orders")
		String orders() {
			return "orders\n";
		}

	}

}
