package dev.ratelimit.lists;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Keeps this instance's {@link RateLimitLists} current with the shared repository, off the request path: it reads the
 * lists at start, again as soon as any instance publishes a change (Redis pub/sub), and, in case a message was lost
 * (a subscription that dropped and came back), reads the version counter every {@code interval} and the lists when it
 * moved. A failed read keeps the lists as they are; an entry with a time to live lapses locally by its own expiry.
 */
public class AccessListSynchronizer implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(AccessListSynchronizer.class);

	private final AccessListRepository repository;

	private final RateLimitLists lists;

	private final Duration interval;

	private final @Nullable RedisConnectionFactory connectionFactory;

	private final String channel;

	private volatile long version = Long.MIN_VALUE;

	private volatile @Nullable ScheduledExecutorService executor;

	private volatile @Nullable RedisMessageListenerContainer container;

	/**
	 * @param repository the shared entries
	 * @param lists this instance's copy
	 * @param interval how often the version is checked
	 * @param connectionFactory subscribes to changes, or {@code null} to rely on the version check alone
	 * @param channel the channel changes are published on
	 */
	public AccessListSynchronizer(AccessListRepository repository, RateLimitLists lists, Duration interval,
			@Nullable RedisConnectionFactory connectionFactory, String channel) {
		this.repository = repository;
		this.lists = lists;
		this.interval = interval;
		this.connectionFactory = connectionFactory;
		this.channel = channel;
	}

	/** Reads the shared lists now. */
	public void synchronize() {
		try {
			long current = this.repository.version();
			this.lists.replaceRuntime(this.repository.load());
			this.version = current;
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the rate limit allow and deny lists; keeping the current ones", ex);
		}
	}

	/** Reads the version, and the lists when it moved since the last read; subscribes first if not yet done. */
	void checkVersion() {
		subscribe();
		try {
			if (this.repository.version() != this.version) {
				synchronize();
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the version of the rate limit lists", ex);
		}
	}

	@Override
	public void start() {
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "ratelimit-lists");
			thread.setDaemon(true);
			return thread;
		});
		this.executor = executor;
		if (this.connectionFactory != null) {
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(this.connectionFactory);
			// a message only says "read again": the read runs on this synchronizer's own thread
			container.addMessageListener((message, pattern) -> executor.execute(this::synchronize),
					new ChannelTopic(this.channel));
			container.afterPropertiesSet();
			this.container = container;
		}
		long millis = Math.max(10, this.interval.toMillis());
		// subscribed before the application is ready, so that it hears every change from then on; an application
		// starts while Redis is down (the failure is logged) and subscribes at a later version check
		subscribe();
		executor.execute(this::synchronize);
		executor.scheduleWithFixedDelay(this::checkVersion, millis, millis, TimeUnit.MILLISECONDS);
	}

	/** Subscribes to changes unless subscribed; a failure is retried at the next version check. */
	private void subscribe() {
		RedisMessageListenerContainer container = this.container;
		if (container == null || container.isRunning()) {
			return;
		}
		try {
			container.start();
		}
		catch (RuntimeException ex) {
			try {
				container.stop();
			}
			catch (RuntimeException stopping) {
				ex.addSuppressed(stopping);
			}
			logger.debug("Could not subscribe to rate limit list changes; trying again in " + this.interval, ex);
		}
	}

	@Override
	public void stop() {
		RedisMessageListenerContainer container = this.container;
		if (container != null) {
			container.stop();
			try {
				container.destroy();
			}
			catch (Exception ex) {
				logger.debug("Could not close the subscription to rate limit list changes", ex);
			}
			this.container = null;
		}
		ScheduledExecutorService executor = this.executor;
		if (executor != null) {
			executor.shutdownNow();
			this.executor = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.executor != null;
	}

}
