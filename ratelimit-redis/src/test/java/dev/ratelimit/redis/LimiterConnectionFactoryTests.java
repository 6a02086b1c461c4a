package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's own connection factory is the application's Redis with options that reject commands while
 * disconnected, and everything else the application configured. Nothing here connects.
 */
class LimiterConnectionFactoryTests {

	@Test
	void aStandaloneFactoryIsCopiedWithItsServerAndTimeoutsButRejectsWhileDisconnected() {
		RedisStandaloneConfiguration standalone = new RedisStandaloneConfiguration("10.0.0.7", 6380);
		standalone.setDatabase(3);
		LettuceConnectionFactory shared = new LettuceConnectionFactory(standalone, LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(7))
			.clientName("app")
			.readFrom(ReadFrom.REPLICA_PREFERRED)
			.build());
		assertThat(LimiterConnectionFactory.rejectsWhileDisconnected(shared)).as("Lettuce's default queues").isFalse();
		LettuceConnectionFactory own = LimiterConnectionFactory.rejectingWhileDisconnected(shared);
		assertThat(own.getHostName()).isEqualTo("10.0.0.7");
		assertThat(own.getPort()).isEqualTo(6380);
		assertThat(own.getDatabase()).isEqualTo(3);
		assertThat(own.getClientConfiguration().getCommandTimeout()).isEqualTo(Duration.ofSeconds(7));
		assertThat(own.getClientConfiguration().getClientName()).contains("app");
		assertThat(own.getClientConfiguration().getReadFrom()).as("the store always writes to the master").isEmpty();
		assertThat(own.getClientConfiguration().getClientOptions().orElseThrow().getDisconnectedBehavior())
			.isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
		assertThat(LimiterConnectionFactory.rejectsWhileDisconnected(own)).isTrue();
	}

	@Test
	void aClusterFactoryKeepsItsNodesAndTopologyRefresh() {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory shared = new LettuceConnectionFactory(
				new RedisClusterConfiguration(List.of("10.0.0.1:7000", "10.0.0.2:7000")),
				LettuceClientConfiguration.builder()
					.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
					.build());
		LettuceConnectionFactory own = LimiterConnectionFactory.rejectingWhileDisconnected(shared);
		assertThat(own.isClusterAware()).isTrue();
		assertThat(own.getClusterConfiguration().getClusterNodes()).extracting(RedisNode::asString)
			.containsExactlyInAnyOrder("10.0.0.1:7000", "10.0.0.2:7000");
		ClientOptions options = own.getClientConfiguration().getClientOptions().orElseThrow();
		assertThat(options).isInstanceOf(ClusterClientOptions.class);
		assertThat(((ClusterClientOptions) options).getTopologyRefreshOptions().getRefreshPeriod())
			.isEqualTo(Duration.ofSeconds(5));
		assertThat(options.getDisconnectedBehavior()).isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
	}

	@Test
	void aSentinelFactoryKeepsItsMasterAndSentinels() {
		LettuceConnectionFactory shared = new LettuceConnectionFactory(
				new RedisSentinelConfiguration("mymaster", Set.of("10.0.0.1:26379", "10.0.0.2:26379")),
				LettuceClientConfiguration.defaultConfiguration());
		LettuceConnectionFactory own = LimiterConnectionFactory.rejectingWhileDisconnected(shared);
		assertThat(own.isRedisSentinelAware()).isTrue();
		assertThat(own.getSentinelConfiguration().getMaster().getName()).isEqualTo("mymaster");
		assertThat(own.getSentinelConfiguration().getSentinels()).extracting(RedisNode::asString)
			.containsExactlyInAnyOrder("10.0.0.1:26379", "10.0.0.2:26379");
	}

	@Test
	void aFactoryWhoseServersCannotBeToldIsNotCopied() {
		RedisConfiguration untyped = new RedisStandaloneConfiguration("10.0.0.7", 6380);
		LettuceConnectionFactory shared = new LettuceConnectionFactory(untyped,
				LettuceClientConfiguration.defaultConfiguration());
		assertThat(LimiterConnectionFactory.rejectingWhileDisconnected(shared)).isNull();
		assertThat(new RedisRateLimitStoreBuilder(SpringDataRedisConnection.of(shared), "rl").build().rejectsWhileDisconnected()).isFalse();
	}

	@Test
	void aFactoryThatAlreadyRejectsNeedsNoCopy() {
		LettuceConnectionFactory shared = new LettuceConnectionFactory(new RedisStandaloneConfiguration(),
				LettuceClientConfiguration.builder()
					.clientOptions(ClientOptions.builder()
						.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
						.build())
					.build());
		assertThat(LimiterConnectionFactory.rejectsWhileDisconnected(shared)).isTrue();
		assertThat(new RedisRateLimitStoreBuilder(SpringDataRedisConnection.of(shared), "rl").build().rejectsWhileDisconnected()).isTrue();
	}

}
