package dev.ratelimit.test.redis;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * One {@code redis-server} child process listening on {@code 127.0.0.1} and a free port, with
 * persistence disabled and its own temporary working directory.
 *
 * <p>The process is started by {@link #start}, which returns once the server answers commands.
 * It can be {@link #kill() killed} (SIGKILL) and {@link #restart() restarted} on the same port and
 * directory, which is what failure tests need. A JVM shutdown hook kills every process that was
 * not {@link #close() closed}, so servers do not outlive the test JVM (unless the JVM itself is
 * SIGKILLed).
 */
public final class RedisServerProcess implements AutoCloseable {

	/** Host every server binds to. */
	public static final String HOST = "127.0.0.1";

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);

	private static final int PORT_ATTEMPTS = 5;

	/** Ports handed out by this JVM (never reused, so a killed node's port is not given away). */
	private static final Set<Integer> USED_PORTS = ConcurrentHashMap.newKeySet();

	private static final Set<RedisServerProcess> OPEN = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(
				() -> OPEN.forEach(RedisServerProcess::destroyNow), "redis-test-process-reaper"));
	}

	private final RedisBinary binary;

	private final int port;

	private final Path directory;

	private final List<String> extraArgs;

	/** The lines of {@code sentinel.conf} for a Sentinel, else {@code null}. */
	private final List<String> sentinelConfig;

	private volatile Process process;

	private volatile boolean closed;

	private RedisServerProcess(RedisBinary binary, int port, List<String> extraArgs, List<String> sentinelConfig)
			throws IOException {
		this.binary = binary;
		this.port = port;
		this.directory = Files.createTempDirectory("redis-" + port + "-");
		this.extraArgs = List.copyOf(extraArgs);
		this.sentinelConfig = (sentinelConfig != null) ? List.copyOf(sentinelConfig) : null;
	}

	/** Starts a server with {@link RedisBinary#locate()} and the given extra {@code redis-server} arguments. */
	public static RedisServerProcess start(String... extraArgs) {
		return start(RedisBinary.locate(), List.of(extraArgs));
	}

	/**
	 * Starts a server on a free port and waits until it answers commands.
	 *
	 * @param binary    the executable to run
	 * @param extraArgs appended to the standard arguments, e.g. {@code "--cluster-enabled", "yes"};
	 *                  relative file names resolve against {@link #directory()}
	 * @throws IllegalStateException if the server does not become ready within 10 s (the message
	 *                               includes the server's output)
	 */
	public static RedisServerProcess start(RedisBinary binary, List<String> extraArgs) {
		return start(binary, extraArgs, null);
	}

	/**
	 * Starts a Sentinel ({@code redis-server sentinel.conf --sentinel}) on a free port and waits until it answers.
	 *
	 * @param configLines the lines of its {@code sentinel.conf} (written once; Sentinel rewrites it, and a restart
	 *                    keeps what it wrote), e.g. {@code sentinel monitor mymaster 127.0.0.1 6379 2}
	 */
	public static RedisServerProcess startSentinel(List<String> configLines) {
		return start(RedisBinary.locate(), List.of(), configLines);
	}

	private static RedisServerProcess start(RedisBinary binary, List<String> extraArgs, List<String> sentinelConfig) {
		for (int attempt = 1; ; attempt++) {
			RedisServerProcess server;
			try {
				server = new RedisServerProcess(binary, freePort(), extraArgs, sentinelConfig);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot create a working directory for redis-server", ex);
			}
			try {
				server.launch();
				return server;
			}
			catch (IllegalStateException ex) {
				server.close();
				// Another process may have grabbed the port between our check and redis binding it.
				if (attempt >= PORT_ATTEMPTS || !ex.getMessage().contains("Address already in use")) {
					throw ex;
				}
			}
		}
	}

	/** Always {@value #HOST}. */
	public String host() {
		return HOST;
	}

	/** The client port (the cluster bus, if enabled, is {@code port() + 10000}). */
	public int port() {
		return port;
	}

	/** {@code redis://127.0.0.1:<port>}. */
	public String uri() {
		return "redis://" + HOST + ":" + port;
	}

	/** This server as a (non-external) {@link RedisEndpoint}. */
	public RedisEndpoint endpoint() {
		return new RedisEndpoint(HOST, port, uri(), false);
	}

	/** The server's working directory ({@code --dir}); kept across restarts, deleted on {@link #close()}. */
	public Path directory() {
		return directory;
	}

	/** The executable this server runs. */
	public RedisBinary binary() {
		return binary;
	}

	/** Whether the process is currently alive. */
	public boolean isRunning() {
		Process current = process;
		return current != null && current.isAlive();
	}

	/** Everything the server wrote to stdout/stderr since it was first started. */
	public String log() {
		try {
			return Files.readString(logFile(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "<no log: " + ex + ">";
		}
	}

	/** Kills the process with SIGKILL (no shutdown, like a crash) and waits until it is gone. */
	public void kill() {
		Process current = process;
		if (current != null) {
			current.destroyForcibly();
			waitForExit(current, Duration.ofSeconds(10));
		}
	}

	/** Stops the server gracefully (SIGTERM), falling back to SIGKILL after 5 s. */
	public void stop() {
		Process current = process;
		if (current != null && current.isAlive()) {
			current.destroy();
			if (!waitForExit(current, Duration.ofSeconds(5))) {
				kill();
			}
		}
	}

	/**
	 * Starts the server again on the same port, with the same directory and arguments (a cluster
	 * node therefore keeps its node id). Stops it first if it is still running.
	 */
	public synchronized void restart() {
		if (closed) {
			throw new IllegalStateException(this + " is closed");
		}
		stop();
		launch();
	}

	/** Stops the server and deletes its directory; the instance cannot be restarted afterwards. */
	@Override
	public void close() {
		closed = true;
		stop();
		OPEN.remove(this);
		deleteDirectory();
	}

	@Override
	public String toString() {
		return ((sentinelConfig != null) ? "redis-sentinel[" : "redis-server[") + HOST + ":" + port + (isRunning() ? ", pid " + process.pid() : ", stopped") + "]";
	}

	private synchronized void launch() {
		List<String> command = new ArrayList<>(List.of(binary.executable().toString()));
		try {
			if (sentinelConfig != null) {
				Path config = directory.resolve("sentinel.conf");
				if (!Files.exists(config)) {
					Files.write(config, sentinelConfig);
				}
				command.addAll(List.of(config.toString(), "--sentinel"));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write sentinel.conf", ex);
		}
		command.addAll(List.of("--port", String.valueOf(port), "--bind", HOST, "--dir", directory.toString(),
				"--daemonize", "no"));
		if (sentinelConfig == null) {
			command.addAll(List.of("--save", "", "--appendonly", "no"));
		}
		command.addAll(extraArgs);
		try {
			process = new ProcessBuilder(command).directory(directory.toFile())
					.redirectErrorStream(true)
					.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
					.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run " + command, ex);
		}
		OPEN.add(this);
		awaitReady(process);
	}

	/** Waits until <em>our</em> process (matched by pid, not just the port) answers INFO. */
	private void awaitReady(Process started) {
		try {
			await().atMost(READY_TIMEOUT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).until(() -> {
				if (!started.isAlive()) {
					throw new IllegalStateException("redis-server on port " + this.port + " exited with code "
							+ started.exitValue() + " during startup. Output:\n" + log());
				}
				return answersInfo(started.pid());
			});
		}
		catch (ConditionTimeoutException ex) {
			started.destroyForcibly();
			throw new IllegalStateException("redis-server on port " + this.port + " did not answer within "
					+ READY_TIMEOUT.toSeconds() + " s. Output:\n" + log(), ex);
		}
	}

	private boolean answersInfo(long pid) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, port), 500);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = new BufferedInputStream(socket.getInputStream());
			StringBuilder header = new StringBuilder();
			for (int b = in.read(); b != '\n'; b = in.read()) {
				if (b < 0) {
					return false;
				}
				header.append((char) b);
			}
			if (header.length() == 0 || header.charAt(0) != '$') {
				return false; // e.g. -LOADING
			}
			byte[] body = in.readNBytes(Integer.parseInt(header.toString().trim().substring(1)));
			return new String(body, StandardCharsets.US_ASCII).contains("process_id:" + pid + "\r\n");
		}
		catch (IOException ex) {
			return false;
		}
	}

	private Path logFile() {
		return directory.resolve("redis-server.log");
	}

	private void destroyNow() {
		Process current = process;
		if (current != null) {
			current.destroyForcibly();
			waitForExit(current, Duration.ofSeconds(2));
		}
		deleteDirectory();
	}

	private void deleteDirectory() {
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
		}
		catch (IOException | UncheckedIOException ex) {
			// best effort: it is a temporary directory
		}
	}

	private static boolean waitForExit(Process process, Duration timeout) {
		try {
			return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return !process.isAlive();
		}
	}

	/**
	 * A random port in [20000, 32000) (below Linux' ephemeral range) whose client port and cluster
	 * bus port ({@code +10000}) are both bindable right now and which this JVM has not used before.
	 */
	private static int freePort() {
		for (int i = 0; i < 1000; i++) {
			int candidate = ThreadLocalRandom.current().nextInt(20000, 32000);
			if (!USED_PORTS.contains(candidate) && bindable(candidate) && bindable(candidate + 10000)
					&& USED_PORTS.add(candidate)) {
				return candidate;
			}
		}
		throw new IllegalStateException("No free port pair (P, P+10000) found in [20000, 42000)");
	}

	private static boolean bindable(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(false);
			socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}
}
