package dev.ratelimit;

import java.util.List;

/**
 * Told of every request and every {@link RateLimited} call that a verdict admitted, before it proceeds, with the
 * {@link Completion} that ends with it: register there what must happen when it ends, such as releasing what the
 * verdict holds. The servlet filter calls it once per phase that admitted a request (with that phase's verdict), the
 * aspect once per admitted call. Declare beans of this type; called on the request thread: keep it cheap.
 */
@FunctionalInterface
public interface AdmissionListener {

	/** A listener that does nothing. */
	AdmissionListener NONE = new AdmissionListener() {

		@Override
		public boolean wants(Verdict verdict) {
			return false;
		}

		@Override
		public void onAdmitted(Verdict verdict, Completion completion) {
		}

	};

	/**
	 * Called for every admitted request or call.
	 * @param verdict the verdict that admitted it
	 * @param completion ends with the request or call
	 */
	void onAdmitted(Verdict verdict, Completion completion);

	/**
	 * Returns whether this listener needs to hear of a request or call that the verdict admitted. Adapters create a
	 * {@link Completion} (and follow the request to its end) only when some listener does, so a listener that acts on
	 * some verdicts only keeps the others free of that cost.
	 * @param verdict the verdict that admitted it
	 * @return whether {@link #onAdmitted} should be called
	 */
	default boolean wants(Verdict verdict) {
		return true;
	}

	/** Returns a listener that calls each of the given listeners, in order. */
	static AdmissionListener composite(List<AdmissionListener> listeners) {
		if (listeners.isEmpty()) {
			return NONE;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		List<AdmissionListener> all = List.copyOf(listeners);
		return new AdmissionListener() {

			@Override
			public boolean wants(Verdict verdict) {
				for (AdmissionListener listener : all) {
					if (listener.wants(verdict)) {
						return true;
					}
				}
				return false;
			}

			@Override
			public void onAdmitted(Verdict verdict, Completion completion) {
				for (AdmissionListener listener : all) {
					if (listener.wants(verdict)) {
						listener.onAdmitted(verdict, completion);
					}
				}
			}

		};
	}

}
