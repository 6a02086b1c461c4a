package dev.ratelimit.client;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application that calls a provider, without a web server of its own; its rules are in
 * {@code ratelimit-outbound-test.yml}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration" })
class OutboundTestApplication {

	static ConfigurableApplicationContext start(String redisUri, String... properties) {
		return new SpringApplicationBuilder(OutboundTestApplication.class).web(WebApplicationType.NONE)
			.properties("spring.config.name=ratelimit-outbound-test", "spring.data.redis.url=" + redisUri)
			.properties(properties)
			.run();
	}

}
