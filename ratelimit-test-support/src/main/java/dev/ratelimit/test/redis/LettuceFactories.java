package dev.ratelimit.test.redis;

import java.net.URI;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Creates started Spring Data Redis connection factories for the test servers. Callers destroy them.
 */
public final class LettuceFactories {

	private LettuceFactories() {
	}

	public static LettuceConnectionFactory standalone(RedisEndpoint endpoint) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(endpoint.host(), endpoint.port());
		String userInfo = URI.create(endpoint.uri()).getUserInfo();
		if (userInfo != null && userInfo.contains(":")) {
			configuration.setPassword(userInfo.substring(userInfo.indexOf(':') + 1));
		}
		return started(new LettuceConnectionFactory(configuration));
	}

	public static LettuceConnectionFactory cluster(RedisClusterEndpoint endpoint) {
		return started(new LettuceConnectionFactory(new RedisClusterConfiguration(endpoint.seedUris().stream()
			.map((uri) -> uri.replaceFirst("^rediss?://", ""))
			.toList())));
	}

	private static LettuceConnectionFactory started(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
