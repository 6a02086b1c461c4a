package dev.ratelimit.observation;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.store.StoreState;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Observes the decisions the adapters (filters, the aspect, the gateway, outbound clients) ask a {@link RateLimiter}
 * for: one {@code ratelimit.decision} observation per decision, the child of the caller's observation (the HTTP
 * server's, normally) and in scope while the limiter calls the store, so that the store client's own observation (a
 * Redis command's span) nests under it; and one {@code ratelimit.slot.wait} observation per wait for a reserved slot.
 * With a registry that has no handlers it calls the limiter straight away.
 */
public final class RateLimitObservations {

	/** Observes nothing. */
	public static final RateLimitObservations NONE = new RateLimitObservations(ObservationRegistry.NOOP, null, "none",
			() -> StoreState.LOCAL);

	private static final DefaultRateLimitObservationConvention DEFAULT_CONVENTION = new DefaultRateLimitObservationConvention();

	private static final DefaultRateLimitWaitObservationConvention WAIT_CONVENTION = new DefaultRateLimitWaitObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable RateLimitObservationConvention convention;

	private final String store;

	private final Supplier<StoreState> state;

	/**
	 * Creates the observations of one limiter.
	 * @param registry the registry
	 * @param convention replaces {@link DefaultRateLimitObservationConvention}, or {@code null}
	 * @param store the name of the store that decides, e.g. {@code redis}
	 * @param state who decides now (the store, or the fallback while it is unavailable)
	 */
	public RateLimitObservations(ObservationRegistry registry, @Nullable RateLimitObservationConvention convention,
			String store, Supplier<StoreState> state) {
		this.registry = registry;
		this.convention = convention;
		this.store = store;
		this.state = state;
	}

	/**
	 * Evaluates the checks on this thread, observed as the child of the current observation.
	 * @param limiter the limiter
	 * @param checks the checks
	 * @param caller who asks, e.g. {@code servlet}
	 * @return the verdict
	 */
	public Verdict evaluate(RateLimiter limiter, List<RateLimitCheck> checks, String caller) {
		if (this.registry.isNoop()) {
			return limiter.evaluate(checks);
		}
		RateLimitObservationContext context = context(checks, caller);
		Observation observation = decision(context, null).start();
		try (Observation.Scope scope = observation.openScope()) {
			Verdict verdict = limiter.evaluate(checks);
			context.setVerdict(verdict);
			return verdict;
		}
		catch (RuntimeException ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			context.setStoreState(this.state.get());
			observation.stop();
		}
	}

	/**
	 * Evaluates the checks with {@link RateLimiter#evaluateAsync}, observed as the child of {@code parent}; the
	 * observation ends when the verdict is known.
	 * @param limiter the limiter
	 * @param checks the checks
	 * @param caller who asks, e.g. {@code webflux}
	 * @param parent the caller's observation (e.g. from the Reactor context), or {@code null} for the current one
	 * @return the limiter's future of the verdict
	 */
	public CompletableFuture<Verdict> evaluateAsync(RateLimiter limiter, List<RateLimitCheck> checks, String caller,
			@Nullable Observation parent) {
		if (this.registry.isNoop()) {
			return limiter.evaluateAsync(checks);
		}
		RateLimitObservationContext context = context(checks, caller);
		Observation observation = decision(context, parent).start();
		CompletableFuture<Verdict> evaluation;
		try (Observation.Scope scope = observation.openScope()) {
			evaluation = limiter.evaluateAsync(checks);
		}
		catch (RuntimeException ex) {
			observation.error(ex);
			context.setStoreState(this.state.get());
			observation.stop();
			throw ex;
		}
		evaluation.whenComplete((verdict, ex) -> {
			if (ex != null) {
				observation.error((ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex);
			}
			else {
				context.setVerdict(verdict);
			}
			context.setStoreState(this.state.get());
			observation.stop();
		});
		return evaluation;
	}

	/**
	 * Starts the observation of an admitted request's wait for its reserved slot; the caller stops it when the slot
	 * comes, or records an error and stops it when the wait is given up.
	 * @param verdict the verdict, with a {@link Verdict#delay() delay}
	 * @param caller who waits, e.g. {@code servlet}
	 * @param parent the caller's observation, or {@code null} for the current one
	 * @return the started observation ({@link Observation#NOOP} when nothing observes)
	 */
	public Observation startWait(Verdict verdict, String caller, @Nullable Observation parent) {
		if (this.registry.isNoop()) {
			return Observation.NOOP;
		}
		RateLimitObservationContext context = context(verdict.checks(), caller);
		context.setVerdict(verdict);
		Observation observation = RateLimitObservationDocumentation.WAIT.observation(null, WAIT_CONVENTION,
				() -> context, this.registry);
		if (parent != null) {
			observation.parentObservation(parent);
		}
		return observation.start();
	}

	/**
	 * Blocks the calling thread until the slot of a verdict ({@link RateLimiter#awaitSlot}), observed as a wait under
	 * the current observation when the verdict has a delay.
	 * @param limiter the limiter that returned the verdict
	 * @param verdict the verdict
	 * @param caller who waits, e.g. {@code outbound}
	 * @return the verdict, once its slot has come
	 */
	public Verdict awaitSlot(RateLimiter limiter, Verdict verdict, String caller) {
		if (verdict.delay().isZero()) {
			return verdict;
		}
		Observation wait = startWait(verdict, caller, null);
		try {
			return limiter.awaitSlot(verdict);
		}
		catch (RuntimeException ex) {
			wait.error(ex);
			throw ex;
		}
		finally {
			wait.stop();
		}
	}

	/** Returns whether observations are recorded (the registry has handlers). */
	public boolean enabled() {
		return !this.registry.isNoop();
	}

	private RateLimitObservationContext context(List<RateLimitCheck> checks, String caller) {
		return new RateLimitObservationContext(checks, caller, this.store, this.state.get());
	}

	private Observation decision(RateLimitObservationContext context, @Nullable Observation parent) {
		Observation observation = RateLimitObservationDocumentation.DECISION.observation(this.convention,
				DEFAULT_CONVENTION, () -> context, this.registry);
		if (parent != null) {
			observation.parentObservation(parent);
		}
		return observation;
	}

}
