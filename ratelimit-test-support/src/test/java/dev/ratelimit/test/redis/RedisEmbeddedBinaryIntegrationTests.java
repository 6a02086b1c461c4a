package dev.ratelimit.test.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static dev.ratelimit.test.redis.RedisClusterIntegrationTests.withCluster;
import static org.assertj.core.api.Assertions.assertThat;

/** The fallback binary from the embedded-redis jar (Redis 6.2) works standalone and as a cluster. */
class RedisEmbeddedBinaryIntegrationTests {

	@Test
	void embeddedBinaryIsExtractedOnceAndServes() {
		RedisBinary binary = RedisBinary.embedded();

		assertThat(binary.source()).isEqualTo(RedisBinary.Source.EMBEDDED);
		assertThat(binary.version()).startsWith("6.2.");
		assertThat(RedisBinary.embedded()).isSameAs(binary);
		try (RedisServerProcess server = RedisServerProcess.start(binary, List.of())) {
			assertThat(server.endpoint().ping()).isEqualTo("PONG");
		}
	}

	@Test
	void clusterFormsWithEmbeddedBinary() {
		try (RedisCluster cluster = RedisCluster.start(RedisBinary.embedded(), 3, 1)) {
			assertThat(cluster.masters()).hasSize(3);
			assertThat(cluster.replicas()).hasSize(3);
			String value = withCluster(cluster.endpoint(), commands -> {
				commands.set("embedded", "works");
				return commands.get("embedded");
			});
			assertThat(value).isEqualTo("works");
		}
	}
}
