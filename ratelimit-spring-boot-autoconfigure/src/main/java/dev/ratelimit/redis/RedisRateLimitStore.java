package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimitStoreException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A {@link RateLimitStore} in Redis (standalone, Sentinel or Cluster, as the Lettuce connection factory is
 * configured). All checks of a request are decided by one script call on Redis's own clock.
 * <p>
 * In a Redis Cluster the checks are grouped by hash slot and the groups run concurrently, one script call each. When
 * one group denies, the groups that admitted are refunded (a second script call that gives back exactly what they
 * consumed) and report their state without the request. Between the two calls other requests may see the
 * consumption; if a refund fails, the quota stays consumed (the conservative direction). A {@link #peek} runs the
 * same script in a mode that writes nothing.
 */
public class RedisRateLimitStore implements RateLimitStore, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisRateLimitStore.class);

	private final LettuceConnectionFactory connectionFactory;

	private final RedisKeys keys;

	private final Duration commandTimeout;

	private final @Nullable LongSupplier explicitNowMicros;

	private final RateLimitScript script = new RateLimitScript(RateLimitScript.GENERAL);

	private final RateLimitScript gcraScript = new RateLimitScript(RateLimitScript.GCRA);

	/** The connection in use, kept across calls; replaced when Lettuce reports it closed. */
	private volatile @Nullable HeldConnection held;

	/**
	 * Creates a store on Redis's clock.
	 * @param connectionFactory the Lettuce connection factory
	 * @param keyPrefix the key prefix
	 * @param commandTimeout how long to wait for Redis before failing with a {@link RateLimitStoreException}
	 */
	public RedisRateLimitStore(LettuceConnectionFactory connectionFactory, String keyPrefix, Duration commandTimeout) {
		this(connectionFactory, keyPrefix, commandTimeout, null);
	}

	/**
	 * Creates a store. For tests only: a non-null {@code explicitNowMicros} replaces Redis {@code TIME}.
	 * @param connectionFactory the Lettuce connection factory
	 * @param keyPrefix the key prefix
	 * @param commandTimeout how long to wait for Redis before failing with a {@link RateLimitStoreException}
	 * @param explicitNowMicros the clock to pass to the script, or {@code null} for Redis {@code TIME}
	 */
	public RedisRateLimitStore(LettuceConnectionFactory connectionFactory, String keyPrefix, Duration commandTimeout,
			@Nullable LongSupplier explicitNowMicros) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
		this.keys = new RedisKeys(keyPrefix);
		this.commandTimeout = Objects.requireNonNull(commandTimeout, "commandTimeout");
		this.explicitNowMicros = explicitNowMicros;
	}

	@Override
	public List<Decision> evaluate(List<RateLimitCheck> checks) {
		return await(evaluateAsync(checks));
	}

	@Override
	public List<Decision> peek(List<RateLimitCheck> checks) {
		return await(peekAsync(checks));
	}

	/**
	 * Evaluates the checks without blocking. Calls made one after another from one thread reach Redis in order.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check
	 */
	public CompletableFuture<List<Decision>> evaluateAsync(List<RateLimitCheck> checks) {
		return decideAsync(checks, RateLimitScript.Mode.EVALUATE);
	}

	/**
	 * Peeks at the checks without blocking: the decisions {@link #evaluateAsync} would give, writing nothing. Calls
	 * made one after another from one thread reach Redis in order.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check
	 */
	public CompletableFuture<List<Decision>> peekAsync(List<RateLimitCheck> checks) {
		return decideAsync(checks, RateLimitScript.Mode.PEEK);
	}

	private CompletableFuture<List<Decision>> decideAsync(List<RateLimitCheck> checks, RateLimitScript.Mode mode) {
		if (checks.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		RedisClusterAsyncCommands<byte[], byte[]> commands = commands();
		Long now = (this.explicitNowMicros != null) ? this.explicitNowMicros.getAsLong() : null;
		byte[][] keyBytes = new byte[checks.size()][];
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			keyBytes[i] = this.keys.key(check.policy().name(), check.subject()).getBytes(StandardCharsets.UTF_8);
		}
		if (checks.size() == 1 || !this.connectionFactory.isClusterAware()) {
			return scriptFor(checks, mode).run(commands, keyBytes, checks, now, mode)
				.thenApply(RateLimitScript.Reply::decisions)
				.toCompletableFuture();
		}
		return decideBySlot(commands, keyBytes, checks, now, mode);
	}

	/**
	 * Runs one call per slot. When one denies, the slots that admitted report their state without the request: an
	 * evaluation refunds them, a peek (which consumed nothing) inspects them again.
	 */
	private CompletableFuture<List<Decision>> decideBySlot(RedisClusterAsyncCommands<byte[], byte[]> commands,
			byte[][] keyBytes, List<RateLimitCheck> checks, @Nullable Long now, RateLimitScript.Mode mode) {
		Map<Integer, List<Integer>> slots = new LinkedHashMap<>();
		for (int i = 0; i < checks.size(); i++) {
			slots.computeIfAbsent(SlotHash.getSlot(keyBytes[i]), (slot) -> new ArrayList<>()).add(i);
		}
		List<SlotGroup> groups = new ArrayList<>();
		for (List<Integer> indexes : slots.values()) {
			groups.add(new SlotGroup(indexes, keyBytes, checks));
		}
		List<CompletableFuture<RateLimitScript.Reply>> replies = new ArrayList<>();
		for (SlotGroup group : groups) {
			replies.add(scriptFor(group.checks, mode).run(commands, group.keys, group.checks, now, mode)
				.toCompletableFuture());
		}
		return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).thenCompose((ignored) -> {
			boolean allowed = replies.stream().allMatch((reply) -> reply.join().allowed());
			Decision[] decisions = new Decision[checks.size()];
			List<CompletableFuture<?>> secondCalls = new ArrayList<>();
			for (int g = 0; g < groups.size(); g++) {
				SlotGroup group = groups.get(g);
				RateLimitScript.Reply reply = replies.get(g).join();
				group.place(reply.decisions(), decisions);
				if (!allowed && reply.allowed()) {
					CompletableFuture<List<Decision>> unconsumed = (mode == RateLimitScript.Mode.PEEK)
							? inspect(commands, group, now) : refund(commands, group, reply, now);
					secondCalls.add(unconsumed.thenAccept((peeked) -> group.placeAllowed(peeked, reply.decisions(),
							decisions)));
				}
			}
			return CompletableFuture.allOf(secondCalls.toArray(CompletableFuture[]::new))
				.thenApply((done) -> Arrays.asList(decisions));
		});
	}

	private CompletableFuture<List<Decision>> inspect(RedisClusterAsyncCommands<byte[], byte[]> commands,
			SlotGroup group, @Nullable Long now) {
		List<RateLimitCheck> inspections = new ArrayList<>(group.checks.size());
		for (RateLimitCheck check : group.checks) {
			inspections.add(new RateLimitCheck(check.policy(), check.subject(), 0, check.shadow()));
		}
		return this.script.run(commands, group.keys, inspections, now, RateLimitScript.Mode.PEEK)
			.thenApply(RateLimitScript.Reply::decisions)
			.toCompletableFuture();
	}

	private CompletableFuture<List<Decision>> refund(RedisClusterAsyncCommands<byte[], byte[]> commands,
			SlotGroup group, RateLimitScript.Reply admitted, @Nullable Long now) {
		List<RateLimitCheck> consumed = new ArrayList<>(group.checks.size());
		for (int i = 0; i < group.checks.size(); i++) {
			RateLimitCheck check = group.checks.get(i);
			long cost = admitted.decisions().get(i).allowed() ? check.cost() : 0;
			consumed.add(new RateLimitCheck(check.policy(), check.subject(), cost, check.shadow()));
		}
		return this.script.run(commands, group.keys, consumed, now, RateLimitScript.Mode.refund(admitted.nowMicros()))
			.thenApply(RateLimitScript.Reply::decisions)
			.toCompletableFuture()
			.exceptionally((ex) -> {
				logger.warn("Could not refund a request denied in another cluster slot; its quota stays consumed", ex);
				return admitted.decisions();
			});
	}

	/** Returns the GCRA fast path when evaluating checks that are all GCRA, else the general script. */
	private RateLimitScript scriptFor(List<RateLimitCheck> checks, RateLimitScript.Mode mode) {
		if (mode != RateLimitScript.Mode.EVALUATE) {
			return this.script;
		}
		for (RateLimitCheck check : checks) {
			if (check.policy().algorithm() != Algorithm.GCRA) {
				return this.script;
			}
		}
		return this.gcraScript;
	}

	/**
	 * Loads the scripts into Redis now. Calls made before would fall back to {@code EVAL} on {@code NOSCRIPT}, which
	 * is always correct but, for calls pipelined from one thread, can reorder them; in a Cluster this loads them on
	 * the node that the connection picks, others load on first use.
	 */
	public void loadScripts() {
		RedisClusterAsyncCommands<byte[], byte[]> commands = commands();
		await(CompletableFuture.allOf(this.script.load(commands), this.gcraScript.load(commands)));
	}

	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		byte[] key = this.keys.key(policy.name(), subject).getBytes(StandardCharsets.UTF_8);
		await(commands().del(key).toCompletableFuture());
	}

	/** Returns the key under which a subject's state of a policy is stored. */
	public String key(RateLimitPolicy policy, String subject) {
		return this.keys.key(policy.name(), subject);
	}

	private RedisClusterAsyncCommands<byte[], byte[]> commands() {
		HeldConnection current = this.held;
		if (current != null && current.stateful.isOpen()) {
			return current.commands;
		}
		return reconnect(current);
	}

	/**
	 * Takes a connection from the factory: its shared native connection (the default), else a dedicated one that
	 * this store keeps until it is closed. Asking the factory on every call costs a wrapper object and several
	 * lookups per request; holding the connection costs nothing, because Lettuce reconnects it by itself and it is
	 * only replaced when it was closed (the factory reset or stopped).
	 */
	private synchronized RedisClusterAsyncCommands<byte[], byte[]> reconnect(@Nullable HeldConnection stale) {
		HeldConnection current = this.held;
		if (current != null && current != stale && current.stateful.isOpen()) {
			return current.commands;
		}
		LettuceConnection connection;
		try {
			connection = (LettuceConnection) this.connectionFactory.getConnection();
		}
		catch (RuntimeException ex) {
			throw new RateLimitStoreException("Cannot connect to Redis: " + ex.getMessage(), ex);
		}
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = connection.getNativeConnection();
		}
		catch (RuntimeException ex) {
			connection.close();
			throw new RateLimitStoreException("Cannot connect to Redis: " + ex.getMessage(), ex);
		}
		StatefulConnection<?, ?> stateful = statefulConnection(commands);
		if (stateful == null) {
			// a kind of connection this store cannot watch: ask the factory again on every call
			connection.close();
			return commands;
		}
		this.held = new HeldConnection(connection, commands, stateful);
		if (stale != null) {
			stale.connection.close();
		}
		return commands;
	}

	private static @Nullable StatefulConnection<?, ?> statefulConnection(
			RedisClusterAsyncCommands<byte[], byte[]> commands) {
		if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
			return standalone.getStatefulConnection();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			return cluster.getStatefulConnection();
		}
		return null;
	}

	/** Gives back the connection this store holds (closing a shared native connection's wrapper leaves it open). */
	@Override
	public synchronized void close() {
		HeldConnection current = this.held;
		this.held = null;
		if (current != null) {
			current.connection.close();
		}
	}

	private <T> T await(CompletableFuture<T> future) {
		try {
			return future.get(this.commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new RateLimitStoreException("Redis did not answer within " + this.commandTimeout, ex);
		}
		catch (ExecutionException ex) {
			throw new RateLimitStoreException("Redis failed: " + ex.getCause().getMessage(), ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RateLimitStoreException("Interrupted while waiting for Redis", ex);
		}
	}

	private record HeldConnection(LettuceConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
			StatefulConnection<?, ?> stateful) {
	}

	/** The checks of one request that share a hash slot. */
	private static final class SlotGroup {

		private final List<Integer> indexes;

		private final byte[][] keys;

		private final List<RateLimitCheck> checks;

		SlotGroup(List<Integer> indexes, byte[][] allKeys, List<RateLimitCheck> allChecks) {
			this.indexes = indexes;
			this.keys = new byte[indexes.size()][];
			this.checks = new ArrayList<>(indexes.size());
			for (int i = 0; i < indexes.size(); i++) {
				this.keys[i] = allKeys[indexes.get(i)];
				this.checks.add(allChecks.get(indexes.get(i)));
			}
		}

		void place(List<Decision> groupDecisions, Decision[] all) {
			for (int i = 0; i < this.indexes.size(); i++) {
				all[this.indexes.get(i)] = groupDecisions.get(i);
			}
		}

		/** Places the refunded (inspected) decisions of the checks that had admitted. */
		void placeAllowed(List<Decision> peeked, List<Decision> original, Decision[] all) {
			for (int i = 0; i < this.indexes.size(); i++) {
				if (original.get(i).allowed()) {
					all[this.indexes.get(i)] = peeked.get(i);
				}
			}
		}

	}

}
