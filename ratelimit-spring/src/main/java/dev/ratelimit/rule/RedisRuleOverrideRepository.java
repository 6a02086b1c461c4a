package dev.ratelimit.rule;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.redis.RedisKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Keeps overrides in one Redis hash, {@code <prefix>:overrides}: field = rule name, value =
 * {@link RuleOverride#encode()}. The hash has no TTL: an override lasts until an operator removes it.
 */
public class RedisRuleOverrideRepository implements RuleOverrideRepository {

	private static final Log logger = LogFactory.getLog(RedisRuleOverrideRepository.class);

	private final RedisConnectionFactory connectionFactory;

	private final byte[] key;

	private final Set<String> reported = ConcurrentHashMap.newKeySet();

	public RedisRuleOverrideRepository(RedisConnectionFactory connectionFactory, String keyPrefix) {
		this.connectionFactory = connectionFactory;
		new RedisKeys(keyPrefix);
		this.key = (keyPrefix + ":overrides").getBytes(StandardCharsets.UTF_8);
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
