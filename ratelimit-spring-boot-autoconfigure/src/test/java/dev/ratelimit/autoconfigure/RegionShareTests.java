package dev.ratelimit.autoconfigure;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code scope: share}: each region enforces its share of a rule's limit ({@code ratelimit.regions.<name>.share},
 * equal shares when unset), against its own Redis; start-up fails naming the property for a missing or unknown
 * region, shares beyond the whole, and a global scope that cannot be served (one region, a peer without its Redis,
 * an algorithm without windows, the in-memory store).
 */
@RedisStandaloneTest
class RegionShareTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.store=local", "ratelimit.rules.api.limit=100", "ratelimit.rules.api.period=1m",
				"ratelimit.rules.api.scope=share", "ratelimit.rules.other.limit=100",
				"ratelimit.rules.other.period=1m");

	@Test
	void eachRegionEnforcesItsShareAndOtherRulesTheirWholeLimit() {
		this.runner
			.withPropertyValues("ratelimit.region=eu", "ratelimit.regions.eu.share=0.3", "ratelimit.regions.us.share=0.7")
			.run((context) -> {
				RateLimitRules rules = context.getBean(RateLimitRules.class);
				assertThat(rules.get("api").map(RateLimitRule::policy).orElseThrow().limit()).isEqualTo(30);
				assertThat(rules.get("other").map(RateLimitRule::policy).orElseThrow().limit()).isEqualTo(100);
			});
		this.runner
			.withPropertyValues("ratelimit.region=us", "ratelimit.regions.eu.share=0.4", "ratelimit.regions.us.url=redis://us.example:6379",
					"ratelimit.regions.ap.url=redis://ap.example:6379")
			.run((context) -> assertThat(context.getBean(RateLimitRules.class).get("api").orElseThrow().policy().limit())
				.as("what eu leaves, shared by us and ap")
				.isEqualTo(30));
	}

	@Test
	void aMissingOrUnknownRegionOrSharesBeyondTheWholeFailStartUpNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.regions.eu.share=0.5")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.region:"));
		this.runner.withPropertyValues("ratelimit.region=ap", "ratelimit.regions.eu.share=0.5")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.regions")
				.hasMessageContaining("'ap'"));
		this.runner
			.withPropertyValues("ratelimit.region=eu", "ratelimit.regions.eu.share=0.6", "ratelimit.regions.us.share=0.6")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.regions")
				.hasMessageContaining("add up to"));
		this.runner.withPropertyValues("ratelimit.region=eu", "ratelimit.regions.eu.share=0.5",
				"ratelimit.rules.other.scope=global")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.regions")
				.hasMessageContaining("only region 'eu'"));
		this.runner
			.withPropertyValues("ratelimit.region=eu", "ratelimit.regions.eu.share=0.5",
					"ratelimit.regions.us.share=0.5", "ratelimit.rules.other.scope=global")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.regions.us.url")
				.hasMessageContaining("does not know its Redis"));
		this.runner
			.withPropertyValues("ratelimit.region=eu", "ratelimit.regions.eu.share=0.5",
					"ratelimit.regions.us.url=redis://us.example:6379", "ratelimit.rules.other.scope=global",
					"ratelimit.rules.other.algorithm=gcra")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitRuleException.class)
				.hasMessageContaining("ratelimit.rules.other.scope")
				.hasMessageContaining("fixed-window or sliding-window-counter"));
		this.runner
			.withPropertyValues("ratelimit.region=eu", "ratelimit.regions.eu.share=0.5",
					"ratelimit.regions.us.url=redis://us.example:6379", "ratelimit.rules.other.scope=global",
					"ratelimit.rules.other.algorithm=fixed-window")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.rules.other.scope")
				.hasMessageContaining("keeps its limits in memory"));
	}

	@Test
	void twoRegionsEachWithItsOwnRedisAdmitHalfOfAShareRuleEach(RedisEndpoint first) {
		try (RedisServerProcess second = RedisServerProcess.start()) {
			long eu = admitted(first.uri(), "eu");
			long us = admitted(second.uri(), "us");
			assertThat(eu).as("eu").isEqualTo(50);
			assertThat(us).as("us").isEqualTo(50);
		}
	}

	/**
	 * Sends 100 requests of one client to a region's application, whose Redis counts only them; a fixed window of a day
	 * (aligned to midnight UTC), so that no window boundary falls within the run.
	 */
	private static long admitted(String redisUri, String region) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.url=" + redisUri, "ratelimit.region=" + region,
					"ratelimit.regions.eu.share=0.5", "ratelimit.regions.us.share=0.5",
					"ratelimit.rules.shared.limit=100", "ratelimit.rules.shared.period=1d",
					"ratelimit.rules.shared.algorithm=fixed-window", "ratelimit.rules.shared.scope=share")
			.run()) {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			RateLimitRule rule = context.getBean(RateLimitRules.class).get("shared").orElseThrow();
			long admitted = 0;
			for (int i = 0; i < 100; i++) {
				if (limiter.evaluate(rule.check(rule.policy(), "region-client", 1)).allowed()) {
					admitted++;
				}
			}
			return admitted;
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
