package dev.ratelimit.test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.redis.RedisServerProcess;
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
 * scheduler that {@code Mono.delay} runs on), for any reactive way of applying the rules: a subclass starts an
 * application on a Redis behind a {@link TcpProxy} and sends its requests, while BlockHound records every blocking call
 * it finds, with Redis up, stalled beyond the limiter's timeout (the timeout path) and stopped (the fallback path).
 * <p>
 * BlockHound is installed once for the rest of the JVM (a second installation would be ignored, so every subclass
 * shares this recorder) and throws nothing, so the other test classes that share the JVM are not affected; the module's
 * surefire {@code argLine} must allow the redefinition it needs ({@code -XX:+AllowRedefinitionToAddDeleteMethods}).
 * The first case proves that a blocking call on a Reactor thread is recorded.
 */
public abstract class NoBlockingCallConformance {

	private static final List<String> blockingCalls = new CopyOnWriteArrayList<>();

	private RedisServerProcess redis;

	private TcpProxy proxy;

	private ConfigurableApplicationContext app;

	private TestHttp http;

	@BeforeAll
	static synchronized void installBlockHound() {
		// the integrations (Reactor's, Netty's) say which threads must not block: Reactor's schedulers, Reactor
		// Netty's and Lettuce's event loops
		BlockHound.builder()
			.loadIntegrations()
			// Spring AOP matches a pointcut to a method on the method's first call through its proxy, once, and
			// AspectJ's matcher of an annotation pattern reads the class file of the method's class to do it: a
			// one-time read of a local file, not a call of ours (seen on the first call of a reactive @RateLimited
			// method)
			.allowBlockingCallsInside("org.springframework.aop.aspectj.AspectJExpressionPointcut", "getShadowMatch")
			// the store call's timeout (Futures.withTimeout) is scheduled on, and cancelled from, a
			// ScheduledThreadPoolExecutor, whose queue is a heap behind a lock shared with its timer thread: a few
			// operations under the lock, no I/O, but a thread that finds the timer thread holding it parks for that
			// long, which BlockHound reports (seen once, on a heavily loaded machine, cancelling from a Lettuce event
			// loop). A lock-free timer would remove it; until then the queue's own operations are allowed
			.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "offer")
			.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove")
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
		this.app = start(RedisServerProcess.HOST, this.proxy.port());
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

	/**
	 * Returns a builder of a reactive application on a random port, with the rules of a configuration file and its
	 * Redis at the given address, that logs only the starter's errors (the degraded paths warn on every request).
	 * @param configName the name of the configuration file ({@code spring.config.name})
	 * @param redisHost the host of Redis
	 * @param redisPort the port of Redis
	 * @param sources the application's configuration classes
	 * @return the builder, to which more properties may be added
	 */
	protected static SpringApplicationBuilder reactiveApplication(String configName, String redisHost, int redisPort,
			Class<?>... sources) {
		return new SpringApplicationBuilder(sources).properties("spring.config.name=" + configName, "server.port=0",
				"spring.main.web-application-type=reactive", "spring.data.redis.host=" + redisHost,
				"spring.data.redis.port=" + redisPort, "logging.level.dev.ratelimit=ERROR");
	}

	/**
	 * Starts the application on a random port, with its Redis at the given address.
	 * @param redisHost the host of Redis
	 * @param redisPort the port of Redis (the proxy's)
	 * @return the application
	 */
	protected abstract ConfigurableApplicationContext start(String redisHost, int redisPort);

	/**
	 * Sends the requests and checks the answers with Redis up.
	 * @param http a client of the application
	 */
	protected abstract void assertAnswersWithRedisUp(TestHttp http);

	/**
	 * Sends the requests and checks that each rule answers as its {@code on-store-failure} says while Redis does not
	 * answer (the timeout or the fallback path).
	 * @param http a client of the application
	 */
	protected abstract void assertDegradedAnswers(TestHttp http);

	/**
	 * Returns a path whose requests are admitted and call the store, with Redis up or not.
	 * @return the path
	 */
	protected abstract String probePath();

	@Test
	void blockHoundIsInstalledAndSeesABlockingCallOnANonBlockingThread() {
		Mono.fromRunnable(NoBlockingCallConformance::blockBriefly).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(5));
		assertThat(blockingCalls).as("BlockHound records what it finds (JVM arguments %s)",
				ManagementFactory.getRuntimeMXBean().getInputArguments()).hasSize(1);
		assertThat(blockingCalls.get(0)).contains("sleep");
		blockingCalls.clear();
	}

	@Test
	void withRedisUpNothingBlocks() {
		// the first store call of a cold application connects and loads scripts: on a loaded machine it can outlast
		// the timeout, and a request admitted by the fallback is not counted in Redis
		assertThat(this.http.get(probePath(), client()).statusCode()).isEqualTo(200);
		assertAnswersWithRedisUp(this.http);
		assertThat(state()).isEqualTo(StoreState.REDIS);
		assertNoBlockingCall();
	}

	@Test
	void withRedisStalledBeyondTheTimeoutNothingBlocks() {
		assertThat(this.http.get(probePath(), client()).statusCode()).isEqualTo(200);
		this.proxy.setReplyDelayMillis(2_000);
		assertDegradedAnswers(this.http);
		assertNoBlockingCall();
	}

	@Test
	void withRedisStoppedNothingBlocks() {
		assertThat(this.http.get(probePath(), client()).statusCode()).isEqualTo(200);
		this.redis.kill();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			this.http.get(probePath(), client());
			return state() == StoreState.FALLBACK;
		});
		assertDegradedAnswers(this.http);
		assertNoBlockingCall();
	}

	/**
	 * Checks that a request whose handling blocks (e.g. sleeps) on the thread it continues on after the verdict is
	 * seen: the threads our code continues on are among those BlockHound watches.
	 * @param path the path of such a request
	 * @param headers its headers
	 */
	protected void assertBlockingCallSeen(String path, Map<String, String> headers) {
		assertThat(this.http.get(path, headers).statusCode()).isEqualTo(200);
		assertThat(blockingCalls).as("the blocking call of %s", path).hasSize(1);
		assertThat(blockingCalls.get(0)).contains("sleep");
		blockingCalls.clear();
	}

	/**
	 * Blocks the calling thread for a millisecond, as a handler must not on an event loop.
	 */
	protected static void blockBriefly() {
		try {
			Thread.sleep(1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private StoreState state() {
		return ((ResilientRateLimiter) this.app.getBean(RateLimiter.class)).state();
	}

	private static void assertNoBlockingCall() {
		assertThat(blockingCalls).as("blocking calls on non-blocking threads").isEmpty();
	}

	/**
	 * Returns the headers of a client of its own.
	 * @return an {@code X-Client} header with a random value
	 */
	protected static Map<String, String> client() {
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
