package dev.ratelimit.test.redis;

import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * What the standalone and the Cluster extensions share: one server (or cluster) per JVM, started lazily and stopped
 * when the test run ends, or an existing one named by an environment variable; parameters of the endpoint type (any
 * server) or the process type (only a harness-started one, e.g. to kill it); before each test, whatever a previous
 * test stopped is brought back. If nothing can be provided the tests fail: they are never skipped.
 *
 * @param <E> the endpoint type
 * @param <P> the process type
 */
abstract class SharedRedisExtension<E, P extends AutoCloseable>
		implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	private final Kind<E, P> kind;

	SharedRedisExtension(Kind<E, P> kind) {
		this.kind = kind;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.kind.shared.closeAtEndOfRun(context);
		this.kind.shared.get();
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.kind.shared.closeAtEndOfRun(context);
		P process = this.kind.shared.get().process();
		if (process != null) {
			this.kind.restartStopped.accept(process);
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
		Class<?> type = parameter.getParameter().getType();
		return type == this.kind.endpointType || type == this.kind.processType;
	}

	@Override
	public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
		this.kind.shared.closeAtEndOfRun(context);
		try {
			return (parameter.getParameter().getType() == this.kind.endpointType) ? this.kind.endpoint()
					: this.kind.process();
		}
		catch (RuntimeException ex) {
			throw new ParameterResolutionException(ex.getMessage(), ex);
		}
	}

	/**
	 * One kind of shared Redis: how to use an existing one and how to start one. Held in a static field of each
	 * extension, so that it is shared by every test class of the JVM.
	 *
	 * @param <E> the endpoint type
	 * @param <P> the process type
	 */
	static final class Kind<E, P extends AutoCloseable> {

		private final String description;

		private final String environmentVariable;

		private final Class<E> endpointType;

		private final Class<P> processType;

		private final Function<String, E> external;

		private final Consumer<E> ping;

		private final Supplier<P> start;

		private final Function<P, E> endpointOf;

		private final Consumer<P> restartStopped;

		private final SharedResource<Provided<E, P>> shared;

		/**
		 * @param description what it is, e.g. "a Redis Cluster"
		 * @param environmentVariable the variable naming an existing one
		 * @param endpointType the endpoint type
		 * @param processType the process type
		 * @param external the endpoint of the variable's value
		 * @param ping fails when an existing one does not answer
		 * @param start starts one
		 * @param endpointOf the endpoint of a started one
		 * @param restartStopped brings back what a test stopped
		 */
		Kind(String description, String environmentVariable, Class<E> endpointType, Class<P> processType,
				Function<String, E> external, Consumer<E> ping, Supplier<P> start, Function<P, E> endpointOf,
				Consumer<P> restartStopped) {
			this.description = description;
			this.environmentVariable = environmentVariable;
			this.endpointType = endpointType;
			this.processType = processType;
			this.external = external;
			this.ping = ping;
			this.start = start;
			this.endpointOf = endpointOf;
			this.restartStopped = restartStopped;
			this.shared = new SharedResource<>(description, this::provide);
		}

		/** The shared endpoint, started on first use. */
		E endpoint() {
			return this.shared.get().endpoint();
		}

		/**
		 * The shared process.
		 * @throws IllegalStateException if the environment variable points to an existing one
		 */
		P process() {
			Provided<E, P> provided = this.shared.get();
			if (provided.process() == null) {
				throw new IllegalStateException("This test needs " + this.description + " it controls, but "
						+ this.environmentVariable + "=" + System.getenv(this.environmentVariable)
						+ " points to an existing one");
			}
			return provided.process();
		}

		private Provided<E, P> provide() {
			String value = System.getenv(this.environmentVariable);
			if (value != null && !value.isBlank()) {
				E endpoint = this.external.apply(value);
				try {
					this.ping.accept(endpoint);
				}
				catch (RuntimeException ex) {
					throw new IllegalStateException(this.environmentVariable + "=" + value + " does not answer PING: "
							+ ex, ex);
				}
				return new Provided<>(endpoint, null);
			}
			try {
				P process = this.start.get();
				return new Provided<>(this.endpointOf.apply(process), process);
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException("Cannot start " + this.description + " for the tests. Install"
						+ " redis-server, set " + RedisBinary.ENV + " to an executable, or set "
						+ this.environmentVariable + " to use a running one. Cause: " + ex.getMessage(), ex);
			}
		}

	}

	/** What is shared; {@code process} is null when it is an existing one. */
	private record Provided<E, P extends AutoCloseable>(E endpoint, @Nullable P process) implements AutoCloseable {

		@Override
		public void close() throws Exception {
			if (this.process != null) {
				this.process.close();
			}
		}

	}

}
