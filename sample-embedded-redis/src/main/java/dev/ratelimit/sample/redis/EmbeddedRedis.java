package dev.ratelimit.sample.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import redis.embedded.RedisServer;

/**
 * A {@code redis-server} child process started from the binary inside {@code com.github.codemonstur:embedded-redis}
 * (Redis 6.2), listening on {@code 127.0.0.1} and a free port, without persistence.
 */
public final class EmbeddedRedis {

	/** The address it listens on. */
	public static final String HOST = "127.0.0.1";

	private static final Log logger = LogFactory.getLog(EmbeddedRedis.class);

	private static final int ATTEMPTS = 3;

	private final RedisServer server;

	private final int port;

	private final AtomicBoolean stopped = new AtomicBoolean();

	private EmbeddedRedis(RedisServer server, int port) {
		this.server = server;
		this.port = port;
	}

	/**
	 * Starts a server on a free port and returns once it accepts connections.
	 * @return the running server
	 * @throws IllegalStateException when it cannot be started
	 */
	public static EmbeddedRedis start() {
		IOException last = null;
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			int port = freePort();
			try {
				RedisServer server = RedisServer.newRedisServer()
					.bind(HOST)
					.port(port)
					.setting("save \"\"")
					.setting("appendonly no")
					// drain the server's output so that it can never block on a full pipe
					.soutListener(EmbeddedRedis::output)
					.serrListener(EmbeddedRedis::output)
					.build();
				server.start();
				return new EmbeddedRedis(server, port);
			}
			catch (IOException ex) {
				// most likely the port was taken between choosing it and binding it: try another
				last = ex;
			}
		}
		throw new IllegalStateException("Could not start the embedded Redis (" + last.getMessage() + "). Start a"
				+ " Redis on localhost:6379 or configure spring.data.redis.url, and set sample.embedded-redis=never",
				last);
	}

	/** Returns the port it listens on. */
	public int port() {
		return this.port;
	}

	/** Returns its URL, e.g. {@code redis://127.0.0.1:34567}. */
	public String url() {
		return "redis://" + HOST + ":" + this.port;
	}

	/** Returns whether the process is running. */
	public boolean isRunning() {
		return !this.stopped.get() && this.server.isActive();
	}

	/** Stops the process; idempotent. */
	public void stop() {
		if (this.stopped.compareAndSet(false, true)) {
			try {
				this.server.stop();
				logger.info("Stopped the embedded Redis on port " + this.port);
			}
			catch (IOException ex) {
				logger.warn("Could not stop the embedded Redis on port " + this.port, ex);
			}
		}
	}

	private static void output(String line) {
		if (logger.isDebugEnabled()) {
			logger.debug("redis-server: " + line);
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot find a free port", ex);
		}
	}

}
