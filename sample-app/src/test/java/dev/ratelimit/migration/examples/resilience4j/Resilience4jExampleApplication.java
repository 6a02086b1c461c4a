package dev.ratelimit.migration.examples.resilience4j;

import dev.ratelimit.RateLimited;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/**
 * The application the Resilience4j example of docs/migrating.md starts with: a service method annotated as in the
 * example. Outside the sample's package, so that the sample's own tests never scan it.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class Resilience4jExampleApplication {

	@Service
	public static class QuoteService {

		@RateLimited("backend")
		public String quote(String symbol) {
			return symbol + ": 42";
		}

	}

}
