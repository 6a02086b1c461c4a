package dev.ratelimit.sample.redis;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;

/**
 * Ties an {@link EmbeddedRedis} to the application: it becomes the {@code embeddedRedis} singleton, registered before
 * every other bean so that the context destroys it last (after the Redis connection factory has closed its
 * connections), and it is stopped when start-up fails. (Should all else fail, embedded-redis's own JVM shutdown hook
 * stops the process.)
 */
class EmbeddedRedisLifecycle implements SmartApplicationListener {

	private final EmbeddedRedis redis;

	EmbeddedRedisLifecycle(EmbeddedRedis redis) {
		this.redis = redis;
	}

	EmbeddedRedis redis() {
		return this.redis;
	}

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationFailedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationPreparedEvent prepared) {
			ConfigurableListableBeanFactory beanFactory = prepared.getApplicationContext().getBeanFactory();
			if (!beanFactory.containsSingleton(EmbeddedRedisEnvironmentPostProcessor.BEAN_NAME)) {
				beanFactory.registerSingleton(EmbeddedRedisEnvironmentPostProcessor.BEAN_NAME, this.redis);
				if (beanFactory instanceof DefaultSingletonBeanRegistry registry) {
					registry.registerDisposableBean(EmbeddedRedisEnvironmentPostProcessor.BEAN_NAME, this.redis::stop);
				}
			}
		}
		else if (event instanceof ApplicationFailedEvent) {
			this.redis.stop();
		}
	}

}
