package dev.ratelimit.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/** The observations of the rate limiter, their names and their keys. */
public enum RateLimitObservationDocumentation implements ObservationDocumentation {

	/** One rate limit decision: all checks of one request (or call) evaluated together. */
	DECISION {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultRateLimitObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	},

	/** The wait of an admitted request for the slot it reserved ({@code max-wait}), from the verdict to the slot. */
	WAIT {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultRateLimitWaitObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeyNames.RULES, LowCardinalityKeyNames.ALGORITHM,
					LowCardinalityKeyNames.CALLER };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/** Low-cardinality keys: bounded by the configuration, never by what clients send. */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The names of the rules decided, in the order of their checks, comma-separated. */
		RULES {
			@Override
			public String asString() {
				return "ratelimit.rules";
			}
		},

		/** {@code allowed}, {@code denied}, {@code waited}, {@code shadow-denied}, {@code fallback} or {@code error}. */
		OUTCOME {
			@Override
			public String asString() {
				return "ratelimit.outcome";
			}
		},

		/** The rule that denied the request (the most restrictive of those that did), or {@code none}. */
		DENIED_BY {
			@Override
			public String asString() {
				return "ratelimit.denied.by";
			}
		},

		/** The algorithms of the rules decided, comma-separated, e.g. {@code gcra,concurrency}. */
		ALGORITHM {
			@Override
			public String asString() {
				return "ratelimit.algorithm";
			}
		},

		/** The store that decides: {@code redis}, {@code local}, ... */
		STORE {
			@Override
			public String asString() {
				return "ratelimit.store";
			}
		},

		/** Who decides: {@code redis}, {@code fallback}, {@code partial} or {@code local}. */
		STORE_STATE {
			@Override
			public String asString() {
				return "ratelimit.store.state";
			}
		},

		/** Who asked: {@code servlet}, {@code webflux}, {@code method}, {@code gateway} or {@code outbound}. */
		CALLER {
			@Override
			public String asString() {
				return "ratelimit.caller";
			}
		},

		/** The simple name of the exception the decision failed with, or {@code none}. */
		ERROR {
			@Override
			public String asString() {
				return "error";
			}
		}

	}

	/** High-cardinality keys: on spans only, never on metrics. */
	public enum HighCardinalityKeyNames implements KeyName {

		/** How long the admitted request waits for its reserved slot, in milliseconds (waited requests only). */
		DELAY {
			@Override
			public String asString() {
				return "ratelimit.delay.ms";
			}
		}

	}

}
