package dev.ratelimit.sample.redis;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Which Redis the sample uses, and the embedded Redis's lifecycle.
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedRedisEnvironmentPostProcessorTests {

	private static final Duration TIMEOUT = EmbeddedRedisEnvironmentPostProcessor.PROBE_TIMEOUT;

	private final SpringApplication application = new SpringApplication();

	private ServerSocket fakeServer;

	@AfterEach
	void stop() throws IOException {
		embedded().map(EmbeddedRedisLifecycle::redis).ifPresent(EmbeddedRedis::stop);
		if (this.fakeServer != null) {
			this.fakeServer.close();
		}
	}

	@Test
	void autoStartsAnEmbeddedRedisWhenNothingIsConfiguredAndNothingAnswers(CapturedOutput output) throws IOException {
		StandardEnvironment environment = environment(Map.of());
		processor(closedPort()).postProcessEnvironment(environment, this.application);
		int port = environment.getProperty("spring.data.redis.port", Integer.class);
		assertThat(environment.getProperty("spring.data.redis.host")).isEqualTo("127.0.0.1");
		assertThat(environment.getProperty("spring.data.redis.url")).isEqualTo("redis://127.0.0.1:" + port);
		assertThat(EmbeddedRedisEnvironmentPostProcessor.redisAnswers("127.0.0.1", port, TIMEOUT)).isTrue();
		assertThat(output).contains("Started an embedded Redis on 127.0.0.1:" + port,
				"no spring.data.redis.* connection configured and no Redis answering on 127.0.0.1:");
	}

	@Test
	void autoUsesARedisAnsweringOnTheDefaultPort(CapturedOutput output) throws IOException {
		int port = fakeRedis("+PONG\r\n");
		StandardEnvironment environment = environment(Map.of());
		processor(port).postProcessEnvironment(environment, this.application);
		assertThat(environment.getPropertySources().contains(EmbeddedRedisEnvironmentPostProcessor.PROPERTY_SOURCE_NAME))
			.isFalse();
		assertThat(embedded()).isEmpty();
		assertThat(output).contains("Using the Redis answering on 127.0.0.1:" + port);
	}

	@Test
	void autoUsesTheConfiguredRedisWithoutShowingItsPassword(CapturedOutput output) throws IOException {
		StandardEnvironment environment = environment(Map.of("spring.data.redis.url", "redis://app:s3cret@redis.example:6380"));
		processor(closedPort()).postProcessEnvironment(environment, this.application);
		assertThat(environment.getProperty("spring.data.redis.url")).isEqualTo("redis://app:s3cret@redis.example:6380");
		assertThat(embedded()).isEmpty();
		assertThat(output).contains("Using the configured Redis at redis://redis.example:6380 (spring.data.redis.url)")
			.doesNotContain("s3cret");
	}

	@Test
	void everyKindOfConnectionCountsAsConfigured() {
		assertThat(describe(Map.of("spring.data.redis.host", "redis.example")))
			.isEqualTo("at redis.example:6379 (spring.data.redis.host/port)");
		assertThat(describe(Map.of("spring.data.redis.port", "6380")))
			.isEqualTo("at localhost:6380 (spring.data.redis.host/port)");
		assertThat(describe(Map.of("spring.data.redis.cluster.nodes[0]", "a:7000", "spring.data.redis.cluster.nodes[1]",
				"b:7000")))
			.isEqualTo("Redis Cluster [a:7000, b:7000] (spring.data.redis.cluster.nodes)");
		assertThat(describe(Map.of("spring.data.redis.sentinel.master", "mymaster")))
			.isEqualTo("Redis Sentinel master 'mymaster' (spring.data.redis.sentinel.master)");
		assertThat(describe(Map.of("spring.data.redis.masterreplica.nodes", "a:6379,b:6379")))
			.isEqualTo("Redis master/replica [a:6379, b:6379] (spring.data.redis.masterreplica.nodes)");
		assertThat(describe(Map.of("spring.data.redis.password", "secret", "spring.data.redis.url", ""))).isNull();
	}

	@Test
	void neverStartsNothing(CapturedOutput output) throws IOException {
		StandardEnvironment environment = environment(Map.of("sample.embedded-redis", "never"));
		processor(closedPort()).postProcessEnvironment(environment, this.application);
		assertThat(environment.getProperty("spring.data.redis.port")).isNull();
		assertThat(embedded()).isEmpty();
		assertThat(output).contains("Using Redis on localhost:6379 (Spring Boot's default) (sample.embedded-redis=never)");
	}

	@Test
	void alwaysReplacesTheConfiguredHostAndUrl() throws IOException {
		int local = fakeRedis("+PONG\r\n");
		StandardEnvironment environment = environment(Map.of("sample.embedded-redis", "ALWAYS",
				"spring.data.redis.url", "redis://redis.example:6380", "spring.data.redis.host", "redis.example"));
		processor(local).postProcessEnvironment(environment, this.application);
		int port = environment.getProperty("spring.data.redis.port", Integer.class);
		assertThat(port).isNotEqualTo(local);
		assertThat(environment.getProperty("spring.data.redis.url")).isEqualTo("redis://127.0.0.1:" + port);
		assertThat(environment.getProperty("spring.data.redis.host")).isEqualTo("127.0.0.1");
		assertThat(embedded()).isPresent();
	}

	@Test
	void alwaysRefusesToReplaceAClusterOrSentinel() {
		StandardEnvironment environment = environment(
				Map.of("sample.embedded-redis", "always", "spring.data.redis.sentinel.master", "mymaster"));
		assertThatIllegalStateException()
			.isThrownBy(() -> processor(6379).postProcessEnvironment(environment, this.application))
			.withMessageContaining("sample.embedded-redis=always cannot replace the configured Redis Sentinel");
		assertThat(embedded()).isEmpty();
	}

	@Test
	void anUnknownModeFails() {
		StandardEnvironment environment = environment(Map.of("sample.embedded-redis", "sometimes"));
		assertThatExceptionOfType(BindException.class)
			.isThrownBy(() -> processor(6379).postProcessEnvironment(environment, this.application));
	}

	@Test
	void theContextStopsTheEmbeddedRedisAfterItsOtherBeans() throws IOException {
		StandardEnvironment environment = environment(Map.of("sample.embedded-redis", "always"));
		processor(closedPort()).postProcessEnvironment(environment, this.application);
		int port = environment.getProperty("spring.data.redis.port", Integer.class);
		GenericApplicationContext context = new GenericApplicationContext();
		boolean[] answeredWhenDestroyed = new boolean[1];
		// registered like an application bean, after the embedded Redis: destroyed before it
		context.registerBean("client", DisposableBean.class, () -> () -> answeredWhenDestroyed[0] = EmbeddedRedisEnvironmentPostProcessor
			.redisAnswers("127.0.0.1", port, TIMEOUT));
		publish(new ApplicationPreparedEvent(this.application, new String[0], context));
		context.refresh();
		EmbeddedRedis redis = context.getBean(EmbeddedRedis.class);
		assertThat(redis.port()).isEqualTo(port);
		assertThat(redis.isRunning()).isTrue();
		context.close();
		assertThat(answeredWhenDestroyed[0]).isTrue();
		assertThat(redis.isRunning()).isFalse();
		assertThat(EmbeddedRedisEnvironmentPostProcessor.redisAnswers("127.0.0.1", port, TIMEOUT)).isFalse();
	}

	@Test
	void aFailedStartStopsTheEmbeddedRedis() throws IOException {
		StandardEnvironment environment = environment(Map.of("sample.embedded-redis", "always"));
		processor(closedPort()).postProcessEnvironment(environment, this.application);
		int port = environment.getProperty("spring.data.redis.port", Integer.class);
		publish(new ApplicationFailedEvent(this.application, new String[0], null, new IllegalStateException("boom")));
		assertThat(EmbeddedRedisEnvironmentPostProcessor.redisAnswers("127.0.0.1", port, TIMEOUT)).isFalse();
	}

	@Test
	void probeNeedsARedisReply() throws IOException {
		assertThat(EmbeddedRedisEnvironmentPostProcessor.redisAnswers("127.0.0.1", closedPort(), TIMEOUT)).isFalse();
		assertThat(EmbeddedRedisEnvironmentPostProcessor.redisAnswers("127.0.0.1", fakeRedis("-NOAUTH Authentication required.\r\n"), TIMEOUT))
			.isTrue();
		this.fakeServer.close();
		// something that accepts connections but never answers (or answers something else) is not a Redis
		assertThat(EmbeddedRedisEnvironmentPostProcessor.redisAnswers("127.0.0.1", fakeRedis(null), TIMEOUT)).isFalse();
		this.fakeServer.close();
		assertThat(EmbeddedRedisEnvironmentPostProcessor.redisAnswers("127.0.0.1", fakeRedis("HTTP/1.1 400 Bad Request\r\n"), TIMEOUT))
			.isFalse();
	}

	private static EmbeddedRedisEnvironmentPostProcessor processor(int probePort) {
		return new EmbeddedRedisEnvironmentPostProcessor((destination) -> destination.get(), "127.0.0.1", probePort);
	}

	private static StandardEnvironment environment(Map<String, Object> properties) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
		return environment;
	}

	private static String describe(Map<String, Object> properties) {
		return EmbeddedRedisEnvironmentPostProcessor
			.configuredConnection(org.springframework.boot.context.properties.bind.Binder.get(environment(properties)));
	}

	private java.util.Optional<EmbeddedRedisLifecycle> embedded() {
		return this.application.getListeners()
			.stream()
			.filter(EmbeddedRedisLifecycle.class::isInstance)
			.map(EmbeddedRedisLifecycle.class::cast)
			.findFirst();
	}

	private void publish(ApplicationEvent event) {
		embedded().orElseThrow().onApplicationEvent(event);
	}

	/** A port nothing listens on. */
	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			return socket.getLocalPort();
		}
	}

	/** A server that accepts one connection and writes a reply (or nothing) to it. */
	private int fakeRedis(String reply) throws IOException {
		this.fakeServer = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
		ServerSocket server = this.fakeServer;
		Thread thread = new Thread(() -> {
			try (Socket socket = server.accept()) {
				if (reply != null) {
					OutputStream out = socket.getOutputStream();
					out.write(reply.getBytes(StandardCharsets.US_ASCII));
					out.flush();
				}
				socket.getInputStream().read();
			}
			catch (IOException ex) {
				// closed by the test
			}
		}, "fake-redis");
		thread.setDaemon(true);
		thread.start();
		return server.getLocalPort();
	}

}
