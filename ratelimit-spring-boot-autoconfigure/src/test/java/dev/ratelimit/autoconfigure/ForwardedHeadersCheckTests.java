package dev.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up WARN when rules use the client IP while forwarded headers are believed from any address.
 */
@ExtendWith(OutputCaptureExtension.class)
class ForwardedHeadersCheckTests {

	private static final String WARNING = "use the client IP";

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.per-ip.limit=10", "ratelimit.rules.per-ip.period=1m");

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			server.forward-headers-strategy=framework                                               | server.forward-headers-strategy=framework
			server.forward-headers-strategy=native;server.tomcat.remoteip.internal-proxies=.*       | server.tomcat.remoteip.internal-proxies='.*'
			server.forward-headers-strategy=native;server.tomcat.remoteip.internal-proxies=0.0.0.0/0 | server.tomcat.remoteip.internal-proxies='0.0.0.0/0'
			server.forward-headers-strategy=native;server.tomcat.remoteip.internal-proxies=::/0     | server.tomcat.remoteip.internal-proxies='::/0'
			server.forward-headers-strategy=native;server.tomcat.remoteip.trusted-proxies=.+        | server.tomcat.remoteip.trusted-proxies='.+'
			server.tomcat.remoteip.remote-ip-header=X-Real-IP;server.tomcat.remoteip.internal-proxies=.* | server.tomcat.remoteip.internal-proxies='.*'
			""")
	void forwardedHeadersBelievedFromAnyAddressGiveOneWarningNamingTheSetting(String properties, String named,
			CapturedOutput output) {
		this.runner.withPropertyValues(properties.split(";")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce(WARNING);
			assertThat(output.getOut().lines().filter((line) -> line.contains(WARNING)).findFirst().orElseThrow())
				.contains("WARN")
				.contains("[per-ip]")
				.contains(named)
				.containsAnyOf("Use ", "Set it to");
		});
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			server.forward-headers-strategy=native
			server.forward-headers-strategy=native;server.tomcat.remoteip.internal-proxies=10\\.0\\.0\\.1
			server.forward-headers-strategy=native;server.tomcat.remoteip.internal-proxies=10.0.0.0/8, 127.0.0.0/8
			server.forward-headers-strategy=native;server.tomcat.remoteip.trusted-proxies=10\\.1\\.2\\.3
			server.forward-headers-strategy=none;server.tomcat.remoteip.internal-proxies=.*
			server.tomcat.remoteip.internal-proxies=.*
			""")
	void forwardedHeadersBelievedOnlyFromProxiesOrNotAtAllGiveNoWarning(String properties, CapturedOutput output) {
		this.runner.withPropertyValues(properties.split(";"))
			.run((context) -> assertThat(output).doesNotContain(WARNING));
	}

	@Test
	void rulesThatNeverUseTheClientIpGiveNoWarning(CapturedOutput output) {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitServletAutoConfiguration.class))
			.withPropertyValues("ratelimit.rules.everyone.key=global", "ratelimit.rules.everyone.limit=10",
					"ratelimit.rules.everyone.period=1m", "ratelimit.rules.per-endpoint.key=endpoint",
					"ratelimit.rules.per-endpoint.limit=10", "ratelimit.rules.per-endpoint.period=1m",
					"ratelimit.rules.per-path.key=path+endpoint", "ratelimit.rules.per-path.limit=10",
					"ratelimit.rules.per-path.period=1m",
					"ratelimit.rules.capacity.algorithm=adaptive-concurrency",
					"server.forward-headers-strategy=framework")
			.run((context) -> assertThat(output).doesNotContain(WARNING));
	}

	@Test
	void keysThatFallBackToTheClientIpCount(CapturedOutput output) {
		this.runner.withPropertyValues("ratelimit.rules.per-ip.key=api-key", "server.forward-headers-strategy=framework")
			.run((context) -> assertThat(output).containsOnlyOnce(WARNING));
	}

}
