package dev.ratelimit.rule;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.redis.RedisKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Keeps overrides in one Redis hash, {@code <prefix>:overrides}: field = rule name, value =
 * {@link RuleOverride#encode()}. The exceptions of a rule are one hash per rule, {@code <prefix>:exceptions:<rule>}:
 * field = subject, value = limit (decimal), at most {@code maxExceptionsPerRule} fields, checked in the same script
 * that writes. The hashes have no TTL: an override or exception lasts until an operator removes it.
 */
public class RedisRuleOverrideRepository implements RuleOverrideRepository {

	private static final Log logger = LogFactory.getLog(RedisRuleOverrideRepository.class);

	/** The script that adds or changes an exception within the bound (kept in a native image by a hint). */
	static final String SAVE_EXCEPTION_LOCATION = "META-INF/ratelimit/rule/save-exception.lua";

	private static final byte[] SAVE_EXCEPTION = script("/" + SAVE_EXCEPTION_LOCATION);

	private final RedisConnectionFactory connectionFactory;

	private final byte[] key;

	private final String keyPrefix;

	private final int maxExceptionsPerRule;

	private final Set<String> reported = ConcurrentHashMap.newKeySet();

	public RedisRuleOverrideRepository(RedisConnectionFactory connectionFactory, String keyPrefix) {
		this(connectionFactory, keyPrefix, DEFAULT_MAX_EXCEPTIONS_PER_RULE);
	}

	/**
	 * @param connectionFactory the connections
	 * @param keyPrefix the prefix of the hashes' keys
	 * @param maxExceptionsPerRule how many exceptions a rule may have
	 */
	public RedisRuleOverrideRepository(RedisConnectionFactory connectionFactory, String keyPrefix,
			int maxExceptionsPerRule) {
		this.connectionFactory = connectionFactory;
		new RedisKeys(keyPrefix);
		this.keyPrefix = keyPrefix;
		this.maxExceptionsPerRule = maxExceptionsPerRule;
		this.key = (keyPrefix + ":overrides").getBytes(StandardCharsets.UTF_8);
	}

	@Override
	public Map<String, Map<String, Long>> loadExceptions(Collection<String> rules) {
		Map<String, Map<String, Long>> exceptions = new LinkedHashMap<>();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (String rule : rules) {
				Map<byte[], byte[]> entries = connection.hashCommands().hGetAll(exceptionsKey(rule));
				if (entries == null || entries.isEmpty()) {
					continue;
				}
				Map<String, Long> limits = new LinkedHashMap<>();
				entries.forEach((field, value) -> {
					String subject = new String(field, StandardCharsets.UTF_8);
					String limit = new String(value, StandardCharsets.UTF_8);
					try {
						limits.put(subject, Long.parseLong(limit));
					}
					catch (NumberFormatException ex) {
						if (this.reported.size() < 1_000 && this.reported.add(rule + "!" + limit)) {
							logger.warn("Ignoring an exception of rule '" + rule + "' whose limit is not a number: "
									+ limit);
						}
					}
				});
				exceptions.put(rule, limits);
			}
		}
		return exceptions;
	}

	@Override
	public boolean saveException(String rule, String subject, long limit) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long saved = connection.scriptingCommands()
				.eval(SAVE_EXCEPTION, ReturnType.INTEGER, 1, exceptionsKey(rule), bytes(subject),
						bytes(Long.toString(limit)), bytes(Integer.toString(this.maxExceptionsPerRule)));
			return saved != null && saved == 1;
		}
	}

	@Override
	public void removeException(String rule, String subject) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.hashCommands().hDel(exceptionsKey(rule), bytes(subject));
		}
	}

	private byte[] exceptionsKey(String rule) {
		return bytes(this.keyPrefix + ":exceptions:" + rule);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] script(String name) {
		try (InputStream in = RedisRuleOverrideRepository.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Missing script " + name);
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public Map<String, RuleOverride> load() {
		Map<byte[], byte[]> entries;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			entries = connection.hashCommands().hGetAll(this.key);
		}
		Map<String, RuleOverride> overrides = new LinkedHashMap<>();
		if (entries != null) {
			entries.forEach((field, value) -> {
				String rule = new String(field, StandardCharsets.UTF_8);
				try {
					overrides.put(rule, RuleOverride.decode(new String(value, StandardCharsets.UTF_8)));
				}
				catch (RuntimeException ex) {
					String encoded = new String(value, StandardCharsets.UTF_8);
					if (this.reported.size() < 1_000 && this.reported.add(rule + '=' + encoded)) {
						logger.warn("Ignoring a malformed override of rule '" + rule + "': " + ex.getMessage());
					}
				}
			});
		}
		return overrides;
	}

	@Override
	public void save(String rule, RuleOverride override) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.hashCommands()
				.hSet(this.key, rule.getBytes(StandardCharsets.UTF_8), override.encode().getBytes(StandardCharsets.UTF_8));
		}
	}

	@Override
	public void remove(String rule) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.hashCommands().hDel(this.key, rule.getBytes(StandardCharsets.UTF_8));
		}
	}

}
