package dev.ratelimit.autoconfigure;

import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.server.PathContainer;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a rule covers is visible at start-up, and a rule that names no paths leaves the actuator alone.
 */
@ExtendWith(OutputCaptureExtension.class)
class RulesAtStartUpTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.everything.limit=100", "ratelimit.rules.everything.period=1m",
				"ratelimit.rules.login.match.paths=/login", "ratelimit.rules.login.match.methods=POST",
				"ratelimit.rules.login.key=ip+#{request.getParameter('username')}",
				"ratelimit.rules.login.algorithm=sliding-window-log", "ratelimit.rules.login.limit=5",
				"ratelimit.rules.login.period=15m", "ratelimit.rules.login.on-store-failure=deny",
				"ratelimit.rules.all.match.paths=/**", "ratelimit.rules.all.limit=10", "ratelimit.rules.all.period=1s",
				"ratelimit.rules.all.burst=20");

	@Test
	void everyRuleIsLoggedOnceWithWhatItCovers(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("Rate limit rule 'everything': any method every path except /actuator/**, key ip,"
					+ " gcra 100 per 1m, enforce, on store failure local");
			assertThat(output).contains("Rate limit rule 'login': POST /login, key ip+#{request.getParameter('username')},"
					+ " sliding-window-log 5 per 15m, enforce, on store failure deny");
			assertThat(output).contains("Rate limit rule 'all': any method /**, key ip, gcra 10 per 1s (burst 20)");
		});
	}

	@Test
	void ruleWithoutPathsLeavesTheActuatorOutUnlessItNamesItsPaths() {
		this.runner.run((context) -> {
			RateLimitRules rules = context.getBean(RateLimitRules.class);
			RateLimitRule everything = rules.get("everything").orElseThrow();
			assertThat(matches(everything, "/api/items")).isTrue();
			assertThat(matches(everything, "/actuator/health")).isFalse();
			assertThat(matches(everything, "/actuator")).isFalse();
			assertThat(matches(everything, "/actuatorial")).isTrue();
			assertThat(matches(rules.get("all").orElseThrow(), "/actuator/health")).isTrue();
		});
	}

	@Test
	void theActuatorsOwnBasePathIsLeftOut() {
		this.runner.withPropertyValues("management.endpoints.web.base-path=/manage/").run((context) -> {
			RateLimitRule everything = context.getBean(RateLimitRules.class).get("everything").orElseThrow();
			assertThat(matches(everything, "/manage/health")).isFalse();
			assertThat(matches(everything, "/actuator/health")).isTrue();
		});
	}

	@Test
	void anActuatorAtTheRootLeavesNothingOut() {
		this.runner.withPropertyValues("management.endpoints.web.base-path=/").run((context) -> {
			RateLimitRule everything = context.getBean(RateLimitRules.class).get("everything").orElseThrow();
			assertThat(matches(everything, "/health")).isTrue();
		});
	}

	private static boolean matches(RateLimitRule rule, String path) {
		return rule.match()
			.matches(new ServletRateLimitRequest(new MockHttpServletRequest("GET", path)), PathContainer.parsePath(path));
	}

}
