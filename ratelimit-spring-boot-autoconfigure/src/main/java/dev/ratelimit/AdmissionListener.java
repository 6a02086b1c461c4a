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
	AdmissionListener NONE = (verdict, completion) -> {
	};

	/**
	 * Called for every admitted request or call.
	 * @param verdict the verdict that admitted it
	 * @param completion ends with the request or call
	 */
	void onAdmitted(Verdict verdict, Completion completion);

	/** Returns a listener that calls each of the given listeners, in order. */
	static AdmissionListener composite(List<AdmissionListener> listeners) {
		if (listeners.isEmpty()) {
			return NONE;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		List<AdmissionListener> all = List.copyOf(listeners);
		return (verdict, completion) -> {
			for (AdmissionListener listener : all) {
				listener.onAdmitted(verdict, completion);
			}
		};
	}

}
