package dev.ratelimit.rule;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Applies the shared overrides and per-subject exceptions to this instance's rules, reading them every {@code interval}: an override made on
 * any instance is in effect everywhere within one interval. A failed read keeps the overrides as they are.
 */
public class RuleOverrideSynchronizer implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RuleOverrideSynchronizer.class);

	private final RuleOverrideRepository repository;

	private final RateLimitRules rules;

	private final Duration interval;

	private volatile @Nullable ScheduledExecutorService executor;

	public RuleOverrideSynchronizer(RuleOverrideRepository repository, RateLimitRules rules, Duration interval) {
		this.repository = repository;
		this.rules = rules;
		this.interval = interval;
	}

	/** Reads the shared overrides now. */
	public void synchronize() {
		try {
			this.rules.replaceOverrides(this.repository.load());
			List<String> names = this.rules.all().stream().map(RateLimitRule::name).toList();
			this.rules.replaceExceptions(this.repository.loadExceptions(names));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read rate limit overrides; keeping the current ones", ex);
		}
	}

	@Override
	public void start() {
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "ratelimit-overrides");
			thread.setDaemon(true);
			return thread;
		});
		long millis = Math.max(10, this.interval.toMillis());
		executor.scheduleWithFixedDelay(this::synchronize, 0, millis, TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	@Override
	public void stop() {
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
