package dev.ratelimit.gateway;

import java.util.Objects;

import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

/** A gateway whose routes forward to a backend under the {@code ratelimit.*} rules of ratelimit-gateway-test.yml. */
@SpringBootApplication(proxyBeanMethods = false)
class GatewayTestApplication {

	/** Whose quota a request uses: the {@code X-Client} header, else the client's address. */
	@Bean
	KeyResolver clientKeyResolver() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"))
			.switchIfEmpty(Mono.fromSupplier(() -> Objects
				.requireNonNull(exchange.getRequest().getRemoteAddress()).getAddress().getHostAddress()));
	}

}
