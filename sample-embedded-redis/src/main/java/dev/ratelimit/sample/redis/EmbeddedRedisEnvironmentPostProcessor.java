package dev.ratelimit.sample.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Decides which Redis the sample uses, before any bean exists, and starts an {@link EmbeddedRedis} when needed
 * ({@code sample.embedded-redis}, default {@code auto}):
 * <ol>
 * <li>{@code always}: start an embedded Redis and point {@code spring.data.redis.*} at it;</li>
 * <li>{@code never}: use what {@code spring.data.redis.*} says (Spring Boot's default: {@code localhost:6379});</li>
 * <li>{@code auto}: a configured connection ({@code spring.data.redis.url}, {@code host}, {@code port},
 * {@code cluster.nodes}, {@code sentinel.master} or {@code masterreplica.nodes}) wins; else a Redis answering
 * {@code PING} on {@code localhost:6379} within 200 ms; else an embedded one.</li>
 * </ol>
 * The embedded Redis is stopped after every bean of the context has been destroyed (so the connection factory closes
 * first), or when start-up fails. Registered in {@code META-INF/spring.factories}.
 */
public class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	/** The property that forces the choice. */
	public static final String MODE_PROPERTY = "sample.embedded-redis";

	/** Name of the property source pointing {@code spring.data.redis.*} at the embedded Redis. */
	public static final String PROPERTY_SOURCE_NAME = "sampleEmbeddedRedis";

	/** Name of the {@link EmbeddedRedis} singleton in the application context. */
	public static final String BEAN_NAME = "embeddedRedis";

	static final String LOCAL_HOST = "localhost";

	static final int LOCAL_PORT = 6379;

	static final Duration PROBE_TIMEOUT = Duration.ofMillis(200);

	private static final String PREFIX = "spring.data.redis.";

	private final Log logger;

	private final String probeHost;

	private final int probePort;

	public EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this(logFactory, LOCAL_HOST, LOCAL_PORT);
	}

	EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory, String probeHost, int probePort) {
		// deferred: logging is initialised after environment post-processors have run
		this.logger = logFactory.getLog(EmbeddedRedisEnvironmentPostProcessor.class);
		this.probeHost = probeHost;
		this.probePort = probePort;
	}

	@Override
	public int getOrder() {
		// after the application's configuration (application.yml, command line, environment) has been loaded
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (environment.getPropertySources().contains(PROPERTY_SOURCE_NAME)) {
			return;
		}
		Binder binder = Binder.get(environment);
		EmbeddedRedisMode mode = binder.bind(MODE_PROPERTY, EmbeddedRedisMode.class).orElse(EmbeddedRedisMode.AUTO);
		String configured = configuredConnection(binder);
		switch (mode) {
			case NEVER -> this.logger.info("Using " + ((configured != null) ? "the configured Redis " + configured
					: "Redis on localhost:6379 (Spring Boot's default)") + " (" + MODE_PROPERTY + "=never)");
			case ALWAYS -> {
				String conflict = clusterOrSentinel(binder);
				if (conflict != null) {
					throw new IllegalStateException(MODE_PROPERTY + "=always cannot replace the configured " + conflict
							+ "; remove one of them");
				}
				startEmbedded(environment, application, MODE_PROPERTY + "=always");
			}
			case AUTO -> {
				if (configured != null) {
					this.logger.info("Using the configured Redis " + configured);
				}
				else if (redisAnswers(this.probeHost, this.probePort, PROBE_TIMEOUT)) {
					this.logger.info("Using the Redis answering on " + this.probeHost + ":" + this.probePort
							+ " (no spring.data.redis.* connection configured; set " + MODE_PROPERTY
							+ "=always to use an embedded Redis instead)");
				}
				else {
					startEmbedded(environment, application, "no spring.data.redis.* connection configured and no"
							+ " Redis answering on " + this.probeHost + ":" + this.probePort);
				}
			}
		}
	}

	private void startEmbedded(ConfigurableEnvironment environment, SpringApplication application, String reason) {
		EmbeddedRedis redis = EmbeddedRedis.start();
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put(PREFIX + "url", redis.url());
		properties.put(PREFIX + "host", EmbeddedRedis.HOST);
		properties.put(PREFIX + "port", redis.port());
		environment.getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME, properties));
		application.addListeners(new EmbeddedRedisLifecycle(redis));
		this.logger.info("Started an embedded Redis on " + EmbeddedRedis.HOST + ":" + redis.port() + " (" + reason
				+ "); it stops with the application");
	}

	/**
	 * Describes the configured connection, or returns {@code null} when {@code spring.data.redis.*} configures none.
	 */
	static String configuredConnection(Binder binder) {
		String url = string(binder, "url");
		if (url != null) {
			return "at " + withoutCredentials(url) + " (spring.data.redis.url)";
		}
		String other = clusterOrSentinel(binder);
		if (other != null) {
			return other;
		}
		String host = string(binder, "host");
		Integer port = binder.bind(PREFIX + "port", Integer.class).orElse(null);
		if (host != null || port != null) {
			return "at " + ((host != null) ? host : LOCAL_HOST) + ":" + ((port != null) ? port : LOCAL_PORT)
					+ " (spring.data.redis.host/port)";
		}
		return null;
	}

	private static String clusterOrSentinel(Binder binder) {
		List<String> cluster = list(binder, "cluster.nodes");
		if (!cluster.isEmpty()) {
			return "Redis Cluster " + cluster + " (spring.data.redis.cluster.nodes)";
		}
		String master = string(binder, "sentinel.master");
		if (master != null) {
			return "Redis Sentinel master '" + master + "' (spring.data.redis.sentinel.master)";
		}
		List<String> replicas = list(binder, "masterreplica.nodes");
		if (!replicas.isEmpty()) {
			return "Redis master/replica " + replicas + " (spring.data.redis.masterreplica.nodes)";
		}
		return null;
	}

	private static String string(Binder binder, String name) {
		String value = binder.bind(PREFIX + name, String.class).orElse(null);
		return StringUtils.hasText(value) ? value : null;
	}

	private static List<String> list(Binder binder, String name) {
		return binder.bind(PREFIX + name, Bindable.listOf(String.class)).orElse(List.of());
	}

	private static String withoutCredentials(String url) {
		try {
			URI uri = URI.create(url);
			if (uri.getUserInfo() == null) {
				return url;
			}
			return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null).toString();
		}
		catch (Exception ex) {
			return "<unparseable URL>";
		}
	}

	/**
	 * Returns whether a Redis answers on a host and port: a TCP connection and an inline {@code PING} whose reply is a
	 * RESP simple string or error ({@code +PONG}, or e.g. {@code -NOAUTH} from a password-protected server), each
	 * within the timeout.
	 */
	static boolean redisAnswers(String host, int port, Duration timeout) {
		int millis = (int) timeout.toMillis();
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), millis);
			socket.setSoTimeout(millis);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			int first = in.read();
			return first == '+' || first == '-';
		}
		catch (IOException | IllegalArgumentException ex) {
			return false;
		}
	}

}
