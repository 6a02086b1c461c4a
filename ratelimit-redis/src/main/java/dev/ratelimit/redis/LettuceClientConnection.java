package dev.ratelimit.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisStoreConnection} opened by a plain Lettuce client (see {@link RedisStoreConnection#of}).
 */
final class LettuceClientConnection implements RedisStoreConnection {

	private final boolean cluster;

	private final boolean rejects;

	private final String description;

	private final RedisConnectionHolder holder;

	LettuceClientConnection(boolean cluster, boolean rejects, String description, RedisConnectionHolder.Opener opener) {
		this.cluster = cluster;
		this.rejects = rejects;
		this.description = description;
		this.holder = new RedisConnectionHolder(opener);
	}

	@Override
	public RedisClusterAsyncCommands<byte[], byte[]> commands() {
		return this.holder.commands();
	}

	@Override
	public boolean isCluster() {
		return this.cluster;
	}

	@Override
	public boolean rejectsCommandsWhileDisconnected() {
		return this.rejects;
	}

	@Override
	public String describe() {
		return this.description;
	}

	@Override
	public void close() {
		this.holder.close();
	}

	/** Whether connections with these options reject commands while disconnected. */
	static boolean rejects(@Nullable ClientOptions options) {
		if (options == null) {
			return false;
		}
		return switch (options.getDisconnectedBehavior()) {
			case REJECT_COMMANDS -> true;
			case ACCEPT_COMMANDS -> false;
			case DEFAULT -> !options.isAutoReconnect();
		};
	}

	static String describe(RedisURI uri) {
		if (uri.getSentinelMasterId() != null) {
			return "master '" + uri.getSentinelMasterId() + "'";
		}
		return uri.getHost() + ":" + uri.getPort();
	}

}
