package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;


/**
 * Watches the memory of the Redis that keeps the limits (every master of a Cluster that serves slots), from
 * {@code INFO memory}: at
 * start-up, then every {@code interval}, and at once when a call fails because Redis is out of memory or succeeds
 * again after that. It logs one WARN per node when its {@code maxmemory-policy} may evict the limiter's keys (and
 * again only if the policy changes), one WARN when a node runs out of memory and one INFO when it has room again, so
 * that the log tells a state, never a flapping one. Health and metrics read {@link #readings()}.
 */
public class RedisMemoryMonitor implements RateLimitListener, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisMemoryMonitor.class);

	/** The least time between two checks that failed or succeeded calls ask for. */
	private static final long MIN_CHECK_SPACING_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** How long one {@code INFO} or {@code CLUSTER NODES} may take before the reading gives up on it. */
	private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

	private final RedisStoreConnection connection;

	private final Duration interval;

	private final LongSupplier nanoTime;

	private final ScheduledExecutorService scheduler;

	private final AtomicBoolean checkRequested = new AtomicBoolean();

	private volatile List<RedisMemory> readings = List.of();

	private final List<Consumer<List<RedisMemory>>> readingListeners = new CopyOnWriteArrayList<>();

	private volatile boolean anyOutOfMemory;

	private long lastCheckNanos;

	private boolean checked;

	/** The policy each node was last warned about. */
	private final Map<String, String> warnedPolicies = new HashMap<>();

	/** The nodes last seen out of memory. */
	private final Map<String, Boolean> outOfMemory = new HashMap<>();

	/**
	 * @param connection a connection to the limiter's Redis (not closed by the monitor)
	 * @param interval how often to read the memory; zero or negative reads it only at start-up and on failures
	 */
	public RedisMemoryMonitor(RedisStoreConnection connection, Duration interval) {
		this(connection, interval, System::nanoTime);
	}

	RedisMemoryMonitor(RedisStoreConnection connection, Duration interval, LongSupplier nanoTime) {
		this.connection = Objects.requireNonNull(connection, "connection");
		this.interval = Objects.requireNonNull(interval, "interval");
		this.nanoTime = nanoTime;
		this.scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "ratelimit-redis-memory");
			thread.setDaemon(true);
			return thread;
		});
	}

	/** Reads the memory now in the background, then every {@code interval} if it is positive. */
	public void start() {
		if (this.interval.isNegative() || this.interval.isZero()) {
			this.scheduler.execute(this::check);
		}
		else {
			this.scheduler.scheduleWithFixedDelay(this::check, 0, this.interval.toNanos(), TimeUnit.NANOSECONDS);
		}
	}

	/** Returns the last reading of every node that answered, in the order read. */
	public List<RedisMemory> readings() {
		return this.readings;
	}

	/**
	 * Adds a consumer of every new reading (of every node that answered), called on the monitor's thread.
	 * @param listener the consumer
	 */
	public void onReading(Consumer<List<RedisMemory>> listener) {
		this.readingListeners.add(listener);
	}

	/** Returns whether a node was out of memory at the last reading. */
	public boolean outOfMemory() {
		return this.anyOutOfMemory;
	}

	/**
	 * Reads the memory of every node now and logs what changed. A node that cannot be read (down, or {@code INFO}
	 * renamed away) keeps no reading; the store's own failures tell that it is down.
	 */
	public synchronized void check() {
		this.lastCheckNanos = this.nanoTime.getAsLong();
		this.checked = true;
		List<RedisMemory> read;
		try {
			read = read();
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not read Redis memory (INFO memory): " + ex.getMessage(), ex);
			}
			return;
		}
		this.readings = List.copyOf(read);
		boolean any = false;
		for (RedisMemory memory : read) {
			logPolicy(memory);
			any |= logOutOfMemory(memory);
		}
		this.anyOutOfMemory = any;
		for (Consumer<List<RedisMemory>> listener : this.readingListeners) {
			listener.accept(this.readings);
		}
	}

	private List<RedisMemory> read() {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.connection.commands();
		if (this.connection.isCluster() && commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			List<RedisMemory> read = new ArrayList<>();
			String nodes = await(cluster.clusterNodes());
			for (RedisClusterNode node : ClusterPartitionParser.parse(nodes)) {
				// the masters that serve slots: a master without any (one that rejoined after a failover and is not yet
				// a replica) holds no limiter keys
				if (node.is(NodeFlag.UPSTREAM) && !node.is(NodeFlag.FAIL) && !node.getSlots().isEmpty()) {
					String name = node.getUri().getHost() + ":" + node.getUri().getPort();
					try {
						read.add(RedisMemory.of(name, properties(await(cluster.getConnection(node.getNodeId())
							.info("memory")))));
					}
					catch (RuntimeException ex) {
						logger.debug("Could not read the memory of Redis node " + name, ex);
					}
				}
			}
			return read;
		}
		return List.of(RedisMemory.of(this.connection.describe(), properties(await(commands.info("memory")))));
	}

	/** Reads the {@code field:value} lines of an {@code INFO} reply. */
	static Properties properties(@Nullable String info) {
		Properties properties = new Properties();
		if (info == null) {
			return properties;
		}
		for (String line : info.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (!line.isEmpty() && line.charAt(0) != '#' && colon > 0) {
				properties.setProperty(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return properties;
	}

	private static <T> T await(RedisFuture<T> future) {
		try {
			return future.get(READ_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while reading Redis memory", ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause().getMessage(), ex.getCause());
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw new IllegalStateException("Redis did not answer within " + READ_TIMEOUT, ex);
		}
	}

	private void logPolicy(RedisMemory memory) {
		String warned = this.warnedPolicies.get(memory.node());
		if (memory.mayEvictLimiterKeys()) {
			if (!memory.policy().equals(warned)) {
				this.warnedPolicies.put(memory.node(), memory.policy());
				logger.warn("Redis " + memory.node() + " has maxmemory-policy " + memory.policy() + " (maxmemory "
						+ memory.maxMemory() + " bytes): under memory pressure it may evict rate limit keys, which"
						+ " silently resets their limits. Keep rate limits in a Redis of their own, or set"
						+ " maxmemory-policy noeviction with headroom above the limiter's keys");
			}
		}
		else if (warned != null) {
			this.warnedPolicies.remove(memory.node());
			logger.info("Redis " + memory.node() + " no longer evicts rate limit keys (maxmemory-policy "
					+ memory.policy() + ", maxmemory " + memory.maxMemory() + ")");
		}
	}

	private boolean logOutOfMemory(RedisMemory memory) {
		boolean now = memory.outOfMemory();
		boolean before = Boolean.TRUE.equals(this.outOfMemory.put(memory.node(), now));
		if (now && !before) {
			logger.warn("Redis " + memory.node() + " is out of memory (used_memory " + memory.usedMemory()
					+ " of maxmemory " + memory.maxMemory() + ", maxmemory-policy noeviction): it refuses the"
					+ " limiter's writes, so rules follow their on-store-failure mode until it has room again");
		}
		else if (before && !now) {
			logger.info("Redis " + memory.node() + " has memory again (used_memory " + memory.usedMemory()
					+ " of maxmemory " + memory.maxMemory() + ")");
		}
		return now;
	}

	/**
	 * Reads the memory again, in the background, when a store call failed because Redis is out of memory while the
	 * last reading did not say so, or succeeded while it did; at most one reading a second.
	 */
	@Override
	public void onStoreCall(List<RateLimitCheck> checks, Duration latency, @Nullable Throwable failure) {
		boolean full = RedisOutOfMemoryException.isOutOfMemory(failure);
		if ((full && !this.anyOutOfMemory) || (failure == null && this.anyOutOfMemory)) {
			requestCheck();
		}
	}

	private void requestCheck() {
		if (!this.checkRequested.compareAndSet(false, true)) {
			return;
		}
		long delay;
		synchronized (this) {
			delay = this.checked
					? Math.max(0, MIN_CHECK_SPACING_NANOS - (this.nanoTime.getAsLong() - this.lastCheckNanos)) : 0;
		}
		try {
			this.scheduler.schedule(() -> {
				try {
					check();
				}
				finally {
					this.checkRequested.set(false);
				}
			}, delay, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// closed
			this.checkRequested.set(false);
		}
	}

	/** Stops reading. */
	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
