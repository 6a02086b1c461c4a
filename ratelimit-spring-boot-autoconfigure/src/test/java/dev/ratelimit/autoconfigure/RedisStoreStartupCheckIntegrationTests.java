package dev.ratelimit.autoconfigure;

import java.net.ServerSocket;
import java.time.Duration;

import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code store: redis} says at start-up whether Redis answers, and never fails start-up because it does not.
 */
@RedisStandaloneTest
@ExtendWith(OutputCaptureExtension.class)
class RedisStoreStartupCheckIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.store=redis", "ratelimit.rules.api.limit=5", "ratelimit.rules.api.period=1m",
				"ratelimit.rules.login.limit=5", "ratelimit.rules.login.period=1m",
				"ratelimit.rules.login.on-store-failure=deny");

	@Test
	void reachableRedisIsReportedOnce(RedisEndpoint redis, CapturedOutput output) {
		this.runner.withBean(LettuceConnectionFactory.class, () -> LettuceFactories.standalone(redis)).run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(output)
				.contains("Redis (standalone, " + redis.host() + ":" + redis.port() + ") answered in"));
			assertThat(output).doesNotContain("is not reachable");
		});
	}

	@Test
	void unreachableRedisIsAWarningNotAFailedStartUp(CapturedOutput output) throws Exception {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		int port = closedPort;
		this.runner.withBean(LettuceConnectionFactory.class, () -> {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
			factory.afterPropertiesSet();
			return factory;
		}).run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(output)
				.contains("Redis (standalone, 127.0.0.1:" + port + ") is not reachable at start-up")
				.contains("each rule decides by its on-store-failure (local [api]; deny [login])"));
		});
	}

}
