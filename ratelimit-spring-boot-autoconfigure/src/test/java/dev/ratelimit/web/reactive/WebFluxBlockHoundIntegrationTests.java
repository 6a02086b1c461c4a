package dev.ratelimit.web.reactive;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.StoreState;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.web.ConformanceTestApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * No blocking call on a thread that must not block (Reactor Netty's event loops, Lettuce's, Reactor's parallel
 * scheduler that {@code Mono.delay} runs on): BlockHound is installed for the rest of the JVM and records every blocking
 * call it finds (it throws nothing, so the other test classes that share the JVM are not affected; surefire's argLine
 * allows the redefinition it needs, see the module's pom), while a WebFlux application
 * answers allowed, denied, waiting, lease-holding and count-when requests with Redis up, stalled beyond the limiter's
 * timeout (the timeout path) and stopped (the fallback path).
 */
class WebFluxBlockHoundIntegrationTests {

	private static final List<String> blockingCalls = new CopyOnWriteArrayList<>();

	private RedisServerProcess redis;

	private TcpProxy proxy;

	private ConfigurableApplicationContext app;

	private TestHttp http;

	@BeforeAll
	static void installBlockHound() {
		// the integrations (Reactor's, Netty's) say which threads must not block: Reactor's schedulers, Reactor
		// Netty's and Lettuce's event loops
		BlockHound.builder()
			.loadIntegrations()
			.blockingMethodCallback((method) -> {
				String trace = stackTrace();
				if (!idleWorker(trace)) {
					blockingCalls.add(method + " on " + Thread.currentThread().getName() + "\n" + trace);
				}
			})
			.install();
	}

	@BeforeEach
	void start() throws Exception {
		this.redis = RedisServerProcess.start();
		this.proxy = new TcpProxy(RedisServerProcess.HOST, this.redis.port());
		this.app = new SpringApplicationBuilder(ConformanceTestApplication.class)
			.properties("spring.config.name=ratelimit-webflux-test", "server.port=0",
					"spring.main.web-application-type=reactive", ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY,
					"spring.data.redis.host=" + RedisServerProcess.HOST, "spring.data.redis.port=" + this.proxy.port(),
					"logging.level.dev.ratelimit=ERROR")
			.run();
		this.http = new TestHttp(((WebServerApplicationContext) this.app).getWebServer().getPort());
		blockingCalls.clear();
	}

	@AfterEach
	void stop() throws Exception {
		if (this.app != null) {
			this.app.close();
		}
		if (this.proxy != null) {
			this.proxy.close();
		}
		if (this.redis != null) {
			this.redis.close();
		}
	}

	@Test
	void blockHoundIsInstalledAndSeesABlockingCallOnANonBlockingThread() {
		Mono.fromRunnable(() -> {
			try {
				Thread.sleep(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(5));
		assertThat(blockingCalls).as("BlockHound records what it finds (JVM arguments %s)",
				ManagementFactory.getRuntimeMXBean().getInputArguments()).hasSize(1);
		assertThat(blockingCalls.get(0)).contains("sleep");
		blockingCalls.clear();
	}

	@Test
	void withRedisUpNothingBlocks() {
		Map<String, String> client = client();
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			statuses.add(this.http.get("/cf/wf/local", client).statusCode());
		}
		assertThat(statuses).containsExactly(200, 200, 200, 429, 429);
		assertThat(this.http.get("/cf/wf/wait", client).statusCode()).isEqualTo(200);
		assertThat(this.http.get("/cf/wf/wait", client).statusCode()).as("waited for its slot").isEqualTo(200);
		assertThat(state()).isEqualTo(StoreState.REDIS);
		assertNoBlockingCall();
	}

	@Test
	void withRedisStalledBeyondTheTimeoutNothingBlocks() {
		assertThat(this.http.get("/cf/wf/local", client()).statusCode()).isEqualTo(200);
		this.proxy.setReplyDelayMillis(2_000);
		assertDegradedAnswers();
		assertNoBlockingCall();
	}

	@Test
	void withRedisStoppedNothingBlocks() {
		assertThat(this.http.get("/cf/wf/local", client()).statusCode()).isEqualTo(200);
		this.redis.kill();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			this.http.get("/cf/wf/local", client());
			return state() == StoreState.FALLBACK;
		});
		assertDegradedAnswers();
		assertNoBlockingCall();
	}

	/** Each rule answers as its {@code on-store-failure} says, through the timeout or the fallback path. */
	private void assertDegradedAnswers() {
		Map<String, String> client = client();
		List<Integer> local = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			local.add(this.http.get("/cf/wf/local", client).statusCode());
		}
		assertThat(local).as("the local fallback keeps the limit").containsExactly(200, 200, 200, 429, 429);
		assertThat(this.http.get("/cf/wf/allow", client).statusCode()).isEqualTo(200);
		HttpResponse<String> denied = this.http.get("/cf/wf/deny", client);
		assertThat(denied.statusCode()).isEqualTo(503);
		assertThat(TestHttp.header(denied, "Content-Type")).startsWith("application/problem+json");
	}

	private StoreState state() {
		return ((ResilientRateLimiter) this.app.getBean(RateLimiter.class)).state();
	}

	private static void assertNoBlockingCall() {
		assertThat(blockingCalls).as("blocking calls on non-blocking threads").isEmpty();
	}

	private static Map<String, String> client() {
		return Map.of("X-Client", UUID.randomUUID().toString());
	}

	/**
	 * Returns whether a blocking call is an idle pool worker waiting for its next task: allowed by Reactor's
	 * integration when the wait begins after BlockHound is installed, but seen as blocking when a worker of a
	 * scheduler that earlier test classes of the same JVM started was already waiting then. Code that blocks while
	 * running a task is not in {@code getTask}.
	 */
	private static boolean idleWorker(String trace) {
		return trace.contains("java.util.concurrent.ThreadPoolExecutor.getTask(");
	}

	private static String stackTrace() {
		StringBuilder trace = new StringBuilder();
		for (StackTraceElement element : new Throwable().getStackTrace()) {
			trace.append("\tat ").append(element).append('\n');
		}
		return trace.toString();
	}

}
