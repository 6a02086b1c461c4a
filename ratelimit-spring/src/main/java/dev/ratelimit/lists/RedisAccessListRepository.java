package dev.ratelimit.lists;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import dev.ratelimit.redis.RedisKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Keeps the runtime entries of each list in one Redis hash, {@code {<prefix>:lists}:deny} and
 * {@code {<prefix>:lists}:allow} (field = the entry's canonical text, value = {@code <expiresAtMillis>;<rules>}),
 * with a version counter {@code {<prefix>:lists}:version}: all three share a hash tag, so one slot of a Redis Cluster.
 * Each change is written by one script (bound, expiry from Redis {@code TIME}, version) and then published on the
 * channel {@code <prefix>:lists}, which every instance's {@link AccessListSynchronizer} listens to.
 */
public class RedisAccessListRepository implements AccessListRepository {

	private static final Log logger = LogFactory.getLog(RedisAccessListRepository.class);

	/** The script that changes a list (kept in a native image by a hint). */
	public static final String SCRIPT_LOCATION = "META-INF/ratelimit/rule/list-entry.lua";

	private static final byte[] SCRIPT = script("/" + SCRIPT_LOCATION);

	private final RedisConnectionFactory connectionFactory;

	private final Map<ListKind, byte[]> keys = new EnumMap<>(ListKind.class);

	private final byte[] versionKey;

	private final byte[] channel;

	private final int maxEntries;

	private final LongSupplier clock;

	private final Set<String> reported = ConcurrentHashMap.newKeySet();

	/**
	 * @param connectionFactory the connections
	 * @param keyPrefix the prefix of the keys and of the channel
	 * @param maxEntries how many entries in force a list may hold
	 * @param clock this instance's time in epoch milliseconds: entries that lapsed by it are not loaded
	 */
	public RedisAccessListRepository(RedisConnectionFactory connectionFactory, String keyPrefix, int maxEntries,
			LongSupplier clock) {
		new RedisKeys(keyPrefix);
		this.connectionFactory = connectionFactory;
		this.maxEntries = maxEntries;
		this.clock = clock;
		String tag = "{" + keyPrefix + ":lists}";
		for (ListKind kind : ListKind.values()) {
			this.keys.put(kind, bytes(tag + ":" + kind.configName()));
		}
		this.versionKey = bytes(tag + ":version");
		this.channel = bytes(channel(keyPrefix));
	}

	/**
	 * Returns the channel on which changes are published.
	 * @param keyPrefix the key prefix
	 * @return the channel
	 */
	public static String channel(String keyPrefix) {
		return keyPrefix + ":lists";
	}

	@Override
	public Map<ListKind, List<ListEntry>> load() {
		Map<ListKind, List<ListEntry>> loaded = new EnumMap<>(ListKind.class);
		long now = this.clock.getAsLong();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (ListKind kind : ListKind.values()) {
				Map<byte[], byte[]> fields = connection.hashCommands().hGetAll(this.keys.get(kind));
				List<ListEntry> entries = new ArrayList<>();
				if (fields != null) {
					fields.forEach((field, value) -> {
						String text = new String(field, StandardCharsets.UTF_8);
						try {
							ListEntry entry = AccessListRepository.decode(text,
									new String(value, StandardCharsets.UTF_8));
							if (entry.activeAt(now)) {
								entries.add(entry);
							}
						}
						catch (RuntimeException ex) {
							if (this.reported.size() < 1_000 && this.reported.add(kind + "!" + text)) {
								logger.warn("Ignoring a malformed entry of the " + kind.configName() + " list: "
										+ ex.getMessage());
							}
						}
					});
				}
				loaded.put(kind, List.copyOf(entries));
			}
		}
		return loaded;
	}

	@Override
	public boolean add(ListKind kind, ListEntry entry, @Nullable Duration ttl) {
		long millis = (ttl != null) ? Math.max(1, ttl.toMillis()) : 0;
		return change(kind, "add", entry.text(), AccessListRepository.encodeRules(entry.rules()),
				Long.toString(millis), Integer.toString(this.maxEntries));
	}

	@Override
	public boolean remove(ListKind kind, String text) {
		return change(kind, "remove", text);
	}

	private boolean change(ListKind kind, String... args) {
		byte[][] keysAndArgs = new byte[2 + args.length][];
		keysAndArgs[0] = this.keys.get(kind);
		keysAndArgs[1] = this.versionKey;
		for (int i = 0; i < args.length; i++) {
			keysAndArgs[2 + i] = bytes(args[i]);
		}
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long done = connection.scriptingCommands().eval(SCRIPT, ReturnType.INTEGER, 2, keysAndArgs);
			connection.publish(this.channel, bytes(kind.configName()));
			return done != null && done == 1;
		}
	}

	@Override
	public long version() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			byte[] value = connection.stringCommands().get(this.versionKey);
			return (value != null) ? Long.parseLong(new String(value, StandardCharsets.UTF_8)) : 0;
		}
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] script(String name) {
		try (InputStream in = RedisAccessListRepository.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Missing script " + name);
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
