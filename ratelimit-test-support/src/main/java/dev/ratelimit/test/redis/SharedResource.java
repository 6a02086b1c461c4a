package dev.ratelimit.test.redis;

import java.util.function.Supplier;

import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A lazily created, JVM-wide resource (a server or cluster shared by all test classes). The first
 * failure to create it is remembered, so later test classes fail fast with the same cause instead
 * of waiting for another start-up timeout.
 */
final class SharedResource<T extends AutoCloseable> {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedResource.class);

	private final String description;

	private final Supplier<T> factory;

	private T value;

	private RuntimeException failure;

	SharedResource(String description, Supplier<T> factory) {
		this.description = description;
		this.factory = factory;
	}

	/** Returns the resource, creating it on first use. */
	synchronized T get() {
		if (failure != null) {
			throw new IllegalStateException("Could not provide " + description + " (failed earlier in this JVM)", failure);
		}
		if (value == null) {
			try {
				value = factory.get();
			}
			catch (RuntimeException ex) {
				failure = ex;
				throw ex;
			}
		}
		return value;
	}

	/** Closes the resource when the whole test run (the root extension context) ends. */
	void closeAtEndOfRun(ExtensionContext context) {
		context.getRoot().getStore(NAMESPACE).computeIfAbsent(this, key -> (AutoCloseable) this::close);
	}

	private synchronized void close() throws Exception {
		T current = value;
		value = null;
		if (current != null) {
			current.close();
		}
	}
}
