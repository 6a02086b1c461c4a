package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.algorithm.Algorithms;
import dev.ratelimit.lease.Lease;
import org.jspecify.annotations.Nullable;

/**
 * A rate limit script: its arguments and its reply. {@code ratelimit.lua} evaluates, peeks at, refunds and settles
 * every algorithm; {@code gcra.lua} is its fast path for evaluating calls whose checks are all GCRA, with compact
 * arguments and a flat reply (decision 136), which this class encodes from and decodes to the same forms.
 */
final class RateLimitScript {

	static final String GENERAL = "META-INF/ratelimit/scripts/ratelimit.lua";

	static final String GCRA = "META-INF/ratelimit/scripts/gcra.lua";

	/** The first line of a script that may touch keys of several hash slots of one Cluster master (Redis 7+). */
	static final String ACROSS_SLOTS = "#!lua flags=allow-cross-slot-keys";

	/** Encoded policy arguments; policies come from configuration and overrides, so this stays small. */
	private final Map<RateLimitPolicy, byte[][]> policyArguments = new ConcurrentHashMap<>();

	private static final byte[] EMPTY = new byte[0];

	private static final byte[][] NO_KEYS = new byte[0][];

	private static final int ARGS_PER_CHECK = 7;

	private static final int WARM_GCRA = 10;

	private static final int WARM_TOKEN_BUCKET = 11;

	/** Values per check in a reply: allowed, remaining, resetAfter, retryAfter, nextAfter. */
	private static final int VALUES_PER_CHECK = 5;

	private static final int SMALL = 64;

	private static final byte[][] SMALL_NUMBERS = new byte[SMALL][];

	static {
		for (int i = 0; i < SMALL; i++) {
			SMALL_NUMBERS[i] = ascii(i);
		}
	}

	private static final byte[] ZERO = ascii(0);

	private static final byte[] ONE = ascii(1);

	/** Calendar windows script id: the fixed window with boundaries given by the caller. */
	private static final byte[] CALENDAR_WINDOW = ascii(9);

	private final LuaScript script;

	/**
	 * {@code gcra.lua} with a shebang allowing keys of several hash slots (Redis 7 and later), for a Redis Cluster
	 * batch of one master's requests: its keys go undeclared, after the arguments (decision 140); {@code null} for
	 * {@code ratelimit.lua}.
	 */
	private final @Nullable LuaScript acrossSlots;

	/** Whether this is {@code gcra.lua}, whose arguments and reply are compact (decision 136). */
	private final boolean compact;

	/** The clock around whose time calendar window boundaries are computed, unless a call has an explicit time. */
	private final Clock clock;

	RateLimitScript(String location) {
		this(location, Clock.systemUTC());
	}

	RateLimitScript(String location, Clock clock) {
		this.script = new LuaScript(location);
		this.clock = clock;
		this.compact = GCRA.equals(location);
		this.acrossSlots = this.compact ? new LuaScript(location, ACROSS_SLOTS) : null;
	}

	/**
	 * The reply of one script call.
	 * @param allowed whether the request is admitted
	 * @param nowMicros the script's time
	 * @param decisions one per check
	 * @param added per check, whether it is a distinct check whose admission added its value to the window (what a
	 * refund must take back)
	 */
	record Reply(boolean allowed, long nowMicros, List<Decision> decisions, boolean[] added) {
	}

	/** What a call does, passed as {@code ARGV[2]}. */
	static final class Mode {

		/** Evaluates the checks, writing what an admitted request consumes. */
		static final Mode EVALUATE = new Mode(EMPTY);

		/** Answers what {@link #EVALUATE} would, writing nothing. */
		static final Mode PEEK = new Mode("peek".getBytes(StandardCharsets.US_ASCII));

		private final byte[] argument;

		private Mode(byte[] argument) {
			this.argument = argument;
		}

		/**
		 * Settles each check (charges or gives back the difference its arguments carry, see
		 * {@link RateLimitScript#settlementArguments}), then inspects.
		 */
		static final Mode SETTLE = new Mode("settle".getBytes(StandardCharsets.US_ASCII));

		/** Gives back what a request admitted at {@code admittedAtMicros} consumed, then inspects. */
		static Mode refund(long admittedAtMicros) {
			return new Mode(ascii(admittedAtMicros));
		}

	}

	/**
	 * Runs the script for some checks.
	 * @param commands where to run it
	 * @param keys one key per check
	 * @param checks the checks
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @param mode evaluate, peek or refund ({@code gcra.lua} only evaluates)
	 * @param leaseId the id of the leases that the concurrency checks acquire (or, for a refund, acquired); may be
	 * {@code ""} when none does
	 */
	CompletableFuture<Reply> run(IssuedCommands commands, byte[][] keys,
			List<RateLimitCheck> checks, @Nullable Long explicitNowMicros, Mode mode, String leaseId) {
		return run(commands, keys, checkArguments(checks, leaseId, explicitNowMicros), checks, explicitNowMicros, mode,
				leaseId);
	}

	/**
	 * Runs the script for some checks whose arguments are encoded already (by {@link #checkArguments}).
	 * @param commands where to run it
	 * @param keys one key per check
	 * @param checkArguments the checks' arguments
	 * @param checks the checks
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @param mode evaluate, peek or refund ({@code gcra.lua} only evaluates)
	 * @param leaseId the id of the leases that the concurrency checks acquire
	 */
	CompletableFuture<Reply> run(IssuedCommands commands, byte[][] keys, byte[][] checkArguments,
			List<RateLimitCheck> checks, @Nullable Long explicitNowMicros, Mode mode, String leaseId) {
		if (this.compact) {
			return this.script
				.run(commands, keys, compactArguments(List.<byte[][]>of(checkArguments), keys, explicitNowMicros))
				.thenApply((values) -> parseCompact(values, List.of(checks)).get(0));
		}
		byte[][] args = new byte[2 + checkArguments.length][];
		args[0] = time(explicitNowMicros);
		args[1] = mode.argument;
		System.arraycopy(checkArguments, 0, args, 2, checkArguments.length);
		return this.script.run(commands, keys, args).thenApply((values) -> parse(values, checks, mode, leaseId));
	}

	/**
	 * Runs the script for a batch: several requests decided one after the other, in order, in one call at one time,
	 * each all-or-nothing on its own.
	 * @param commands where to run it
	 * @param requests the requests, each evaluating or peeking
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @return one reply per request
	 */
	CompletableFuture<List<Reply>> runBatch(IssuedCommands commands, List<BatchLane.Request> requests,
			@Nullable Long explicitNowMicros) {
		return runBatch(commands, requests, explicitNowMicros, false);
	}

	/**
	 * Runs the script for a batch, as {@link #runBatch(IssuedCommands, List, Long)} does, its keys optionally in
	 * several hash slots of one Redis Cluster master ({@code gcra.lua} only, Redis 7 and later): the call then declares
	 * no keys and must go to that master's own connection, which does not follow redirections; a master that does not
	 * serve every key (the topology moved) fails the call before it writes.
	 * @param commands where to run it (for keys of several slots: one master's commands)
	 * @param requests the requests, each evaluating or peeking
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @param severalSlots whether the keys may lie in several hash slots
	 * @return one reply per request
	 */
	CompletableFuture<List<Reply>> runBatch(IssuedCommands commands, List<BatchLane.Request> requests,
			@Nullable Long explicitNowMicros, boolean severalSlots) {
		if (severalSlots && this.acrossSlots == null) {
			throw new IllegalStateException("Only gcra.lua runs batches across hash slots");
		}
		int checks = 0;
		for (BatchLane.Request request : requests) {
			checks += request.keys().length;
		}
		byte[][] keys = new byte[checks][];
		if (this.compact) {
			List<byte[][]> arguments = new ArrayList<>(requests.size());
			List<List<RateLimitCheck>> requestChecks = new ArrayList<>(requests.size());
			int at = 0;
			for (BatchLane.Request request : requests) {
				System.arraycopy(request.keys(), 0, keys, at, request.keys().length);
				at += request.keys().length;
				arguments.add(request.checkArguments());
				requestChecks.add(request.checks());
			}
			byte[][] args = compactArguments(arguments, keys, explicitNowMicros);
			CompletableFuture<List<Object>> values;
			if (severalSlots) {
				// undeclared keys after the arguments, then their number (decision 140)
				byte[][] all = Arrays.copyOf(args, args.length + keys.length + 1);
				System.arraycopy(keys, 0, all, args.length, keys.length);
				all[all.length - 1] = ascii(keys.length);
				values = this.acrossSlots.run(commands, NO_KEYS, all);
			}
			else {
				values = this.script.run(commands, keys, args);
			}
			return values.thenApply((reply) -> parseCompact(reply, requestChecks));
		}
		byte[][] args = new byte[2 + ARGS_PER_CHECK * checks + requests.size()][];
		args[0] = time(explicitNowMicros);
		args[1] = EMPTY;
		int at = 0;
		for (int q = 0; q < requests.size(); q++) {
			BatchLane.Request request = requests.get(q);
			int size = request.keys().length;
			System.arraycopy(request.keys(), 0, keys, at, size);
			System.arraycopy(request.checkArguments(), 0, args, 2 + ARGS_PER_CHECK * at, ARGS_PER_CHECK * size);
			args[2 + ARGS_PER_CHECK * checks + q] = ascii((request.mode() == Mode.PEEK) ? -size : size);
			at += size;
		}
		return this.script.run(commands, keys, args).thenApply((values) -> {
			List<Reply> replies = new ArrayList<>(requests.size());
			for (int q = 0; q < requests.size(); q++) {
				BatchLane.Request request = requests.get(q);
				@SuppressWarnings("unchecked")
				List<Object> reply = (List<Object>) values.get(q);
				replies.add(parse(reply, request.checks(), request.mode(), request.leaseId()));
			}
			return replies;
		});
	}

	/**
	 * Encodes {@code gcra.lua}'s arguments from the checks' arguments (as {@link #checkArguments} encodes them): the
	 * time, the call's distinct specs (interval, capacity, cost, shadow), and either the one shape of every request
	 * (its checks' specs) or each check's spec and each request's number of checks. The requests of one call usually
	 * share one shape, so a check costs Redis no argument instead of {@value #ARGS_PER_CHECK}. The number of specs is
	 * sent negative when no key occurs twice in the call, which spares the script its table of what the call wrote.
	 * @param requests per request, its checks' arguments
	 * @param keys the keys of all requests' checks, one per check
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 */
	private static byte[][] compactArguments(List<byte[][]> requests, byte[][] keys, @Nullable Long explicitNowMicros) {
		int checks = keys.length;
		List<byte[][]> specs = new ArrayList<>(2);
		byte[][] specOf = new byte[checks][];
		int i = 0;
		for (byte[][] arguments : requests) {
			for (int base = 0; base < arguments.length; base += ARGS_PER_CHECK) {
				byte[] interval = arguments[base + 1];
				byte[] capacity = arguments[base + 2];
				byte[] cost = arguments[base + 4];
				byte[] shadow = arguments[base + 5];
				int s = 0;
				while (s < specs.size() && !sameSpec(specs.get(s), interval, capacity, cost, shadow)) {
					s++;
				}
				if (s == specs.size()) {
					specs.add(new byte[][] { interval, capacity, cost, shadow });
				}
				specOf[i++] = small(s + 1);
			}
		}
		// the requests' shape: the number of checks and their specs, when every request has the same
		int template = requests.get(0).length / ARGS_PER_CHECK;
		for (int q = 0, at = 0; q < requests.size() && template > 0; q++) {
			int size = requests.get(q).length / ARGS_PER_CHECK;
			if (size != template) {
				template = 0;
				break;
			}
			for (int j = 0; j < size; j++, at++) {
				if (specOf[at] != specOf[j]) {
					template = 0;
					break;
				}
			}
		}
		int specsAt = 3;
		int checksAt = specsAt + 4 * specs.size();
		byte[][] args = new byte[checksAt + ((template > 0) ? template : checks + requests.size())][];
		args[0] = time(explicitNowMicros);
		// a call of one key keeps no table anyway: its arguments stay those of decision 136
		args[1] = (keys.length > 1 && distinct(keys)) ? ascii(-specs.size()) : small(specs.size());
		args[2] = small(template);
		for (int s = 0; s < specs.size(); s++) {
			System.arraycopy(specs.get(s), 0, args, specsAt + 4 * s, 4);
		}
		if (template > 0) {
			System.arraycopy(specOf, 0, args, checksAt, template);
			return args;
		}
		System.arraycopy(specOf, 0, args, checksAt, checks);
		int at = checksAt + checks;
		for (byte[][] arguments : requests) {
			args[at++] = small(arguments.length / ARGS_PER_CHECK);
		}
		return args;
	}

	/**
	 * Returns whether no key occurs twice: pairwise for a few keys, else through a table of their hashes, compared
	 * in full only where two hashes meet.
	 */
	static boolean distinct(byte[][] keys) {
		int n = keys.length;
		if (n <= 8) {
			for (int i = 1; i < n; i++) {
				for (int j = 0; j < i; j++) {
					if (Arrays.equals(keys[i], keys[j])) {
						return false;
					}
				}
			}
			return true;
		}
		int mask = Integer.highestOneBit(n * 2 - 1) * 2 - 1;
		int[] slots = new int[mask + 1];
		int[] hashes = new int[n];
		for (int i = 0; i < n; i++) {
			int hash = Arrays.hashCode(keys[i]);
			hashes[i] = hash;
			int slot = (hash ^ (hash >>> 16)) & mask;
			while (slots[slot] != 0) {
				int other = slots[slot] - 1;
				if (hashes[other] == hash && Arrays.equals(keys[other], keys[i])) {
					return false;
				}
				slot = (slot + 1) & mask;
			}
			slots[slot] = i + 1;
		}
		return true;
	}

	private static boolean sameSpec(byte[][] spec, byte[] interval, byte[] capacity, byte[] cost, byte[] shadow) {
		return same(spec[0], interval) && same(spec[1], capacity) && same(spec[2], cost) && same(spec[3], shadow);
	}

	private static boolean same(byte[] a, byte[] b) {
		return a == b || Arrays.equals(a, b);
	}

	/** Returns a small non-negative number's ASCII bytes, shared up to {@value #SMALL}. */
	private static byte[] small(int value) {
		return (value < SMALL) ? SMALL_NUMBERS[value] : ascii(value);
	}

	/**
	 * Reads {@code gcra.lua}'s flat reply: now, then per request either its checks' resetAfter, never negative (every
	 * check admitted), or -1 (admitted) or -2 (denied) and then its checks' five values each.
	 */
	private static List<Reply> parseCompact(List<Object> values, List<List<RateLimitCheck>> requests) {
		long now = number(values, 0);
		List<Reply> replies = new ArrayList<>(requests.size());
		int at = 1;
		for (List<RateLimitCheck> checks : requests) {
			int n = checks.size();
			long flag = number(values, at);
			if (flag >= 0) {
				replies.add(parseShort(values, at, checks, now));
				at += n;
				continue;
			}
			List<Decision> decisions = new ArrayList<>(n);
			for (int i = 0; i < n; i++) {
				int base = at + 1 + VALUES_PER_CHECK * i;
				decisions.add(Decision.ofMicros(number(values, base) == 1, checks.get(i).policy().limit(),
						number(values, base + 1), number(values, base + 2), number(values, base + 3),
						number(values, base + 4), now));
			}
			replies.add(new Reply(flag == -1, now, decisions, new boolean[n]));
			at += 1 + VALUES_PER_CHECK * n;
		}
		return replies;
	}

	/**
	 * Encodes the arguments of some checks, {@value #ARGS_PER_CHECK} per check.
	 * @param checks the checks
	 * @param leaseId the id of the leases that the concurrency checks acquire (or, for a refund, acquired); may be
	 * {@code ""} when none does
	 * @param explicitNowMicros the time the call passes, or {@code null} for Redis {@code TIME}: calendar windows'
	 * boundaries are computed around it, or around this script's clock
	 * @return their arguments
	 */
	byte[][] checkArguments(List<RateLimitCheck> checks, String leaseId, @Nullable Long explicitNowMicros) {
		byte[][] args = new byte[ARGS_PER_CHECK * checks.size()][];
		if (this.policyArguments.size() > 10_000) {
			// overrides create new policies over time; never let the cache grow without bound
			this.policyArguments.clear();
		}
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			int base = ARGS_PER_CHECK * i;
			byte[][] constant = this.policyArguments.computeIfAbsent(check.policy(), RateLimitScript::policyArguments);
			args[base] = constant[0];
			args[base + 1] = constant[1];
			args[base + 2] = constant[2];
			args[base + 3] = thirdArgument(check, leaseId, explicitNowMicros);
			args[base + 4] = (check.cost() == 1) ? ONE : ascii(check.cost());
			args[base + 5] = check.shadow() ? ONE : ZERO;
			args[base + 6] = check.maxWait().isZero() ? ZERO : ascii(check.maxWaitMicros());
		}
		return args;
	}

	/**
	 * Encodes the arguments of settlements for {@link Mode#SETTLE}: those of each one's check, with the signed
	 * difference between its actual and its reserved cost in place of the cost, and the time it was admitted in place
	 * of {@code maxWait}.
	 * @param settlements the settlements
	 * @param explicitNowMicros the time the call passes, or {@code null} for Redis {@code TIME}
	 * @return their arguments
	 */
	byte[][] settlementArguments(List<Settlement> settlements, @Nullable Long explicitNowMicros) {
		byte[][] args = checkArguments(settlements.stream().map(Settlement::inspection).toList(), "",
				explicitNowMicros);
		for (int i = 0; i < settlements.size(); i++) {
			Settlement settlement = settlements.get(i);
			args[ARGS_PER_CHECK * i + 4] = ascii(settlement.difference());
			args[ARGS_PER_CHECK * i + 6] = ascii(settlement.consumption().atMicros());
		}
		return args;
	}

	private static byte[] time(@Nullable Long explicitNowMicros) {
		return (explicitNowMicros != null) ? ascii(explicitNowMicros) : EMPTY;
	}

	/** Loads the script into Redis ({@code SCRIPT LOAD}), so that the next calls need no {@code EVAL} fallback. */
	CompletableFuture<String> load(IssuedCommands commands) {
		return this.script.load(commands);
	}

	private byte[] thirdArgument(RateLimitCheck check, String leaseId, @Nullable Long explicitNowMicros) {
		RateLimitPolicy policy = check.policy();
		CalendarPeriod calendar = policy.calendar();
		if (calendar != null) {
			long around = (explicitNowMicros != null) ? explicitNowMicros : micros(this.clock.instant());
			StringBuilder boundaries = new StringBuilder();
			for (long boundary : calendar.boundaries(around)) {
				boundaries.append(boundaries.isEmpty() ? "" : " ").append(boundary);
			}
			return boundaries.toString().getBytes(StandardCharsets.US_ASCII);
		}
		if (policy.algorithm() == Algorithm.CONCURRENCY) {
			return leaseId.getBytes(StandardCharsets.UTF_8);
		}
		if (policy.algorithm() == Algorithm.DISTINCT) {
			String value = check.distinctValue();
			return (value != null) ? value.getBytes(StandardCharsets.US_ASCII) : EMPTY;
		}
		if (policy.warmsUp()) {
			return (policy.warmUpMicros() + " " + policy.coldFactor() + " " + policy.limit())
				.getBytes(StandardCharsets.US_ASCII);
		}
		return policy.spreadWindows() ? ascii(Algorithms.windowOffset(policy, check.subject())) : ZERO;
	}

	/**
	 * Reads {@code ratelimit.lua}'s reply ({@code gcra.lua}'s is {@link #parseCompact}): one decision per check; an
	 * evaluation that admits the request gives each concurrency check the lease it acquired, with the count of slots
	 * reclaimed, and each admitting check the delay of a reservation.
	 */
	private static Reply parse(List<Object> values, List<RateLimitCheck> checks, Mode mode, String leaseId) {
		boolean allowed = number(values, 0) == 1;
		long now = number(values, 1);
		int n = checks.size();
		// after the values of every check and the reclaimed (or added) value of every check; refunds reply none
		int delayAt = 2 + (VALUES_PER_CHECK + 1) * n;
		long delay = (values.size() > delayAt) ? number(values, delayAt) : 0;
		List<Decision> decisions = new ArrayList<>(n);
		boolean[] added = new boolean[n];
		for (int i = 0; i < n; i++) {
			RateLimitCheck check = checks.get(i);
			int base = 2 + VALUES_PER_CHECK * i;
			int reclaimedAt = 2 + VALUES_PER_CHECK * n + i;
			long reclaimed = (values.size() > reclaimedAt) ? number(values, reclaimedAt) : 0;
			long limit = check.policy().limit();
			if (check.policy().warmsUp()) {
				// the same reply field says the limit in force at the key's warmth (a refund replies none)
				limit = (reclaimed > 0) ? reclaimed : limit;
				reclaimed = 0;
			}
			Decision decision = Decision.ofMicros(number(values, base) == 1, limit, number(values, base + 1),
					number(values, base + 2), number(values, base + 3), number(values, base + 4), now);
			if (check.policy().algorithm() == Algorithm.DISTINCT) {
				// the same reply field says whether the admission added the value: not a reclaimed slot
				added[i] = reclaimed > 0;
				reclaimed = 0;
			}
			if (check.acquiresLease() && allowed && decision.allowed() && mode == Mode.EVALUATE) {
				decision = decision.withLease(new Lease(check.policy(), check.subject(), leaseId, check.cost()),
						reclaimed);
			}
			else if (reclaimed > 0) {
				decision = decision.withLease(null, reclaimed);
			}
			if (delay > 0 && allowed && decision.allowed()) {
				decision = decision.withDelay(Duration.of(delay, ChronoUnit.MICROS));
			}
			decisions.add(decision);
		}
		return new Reply(allowed, now, decisions, added);
	}

	/**
	 * Reads {@code gcra.lua}'s short reply, for a request whose every check admitted: from {@code from}, per check
	 * how far its TAT is ahead of now (resetAfter); remaining and nextAfter follow from it as in
	 * {@link dev.ratelimit.algorithm.Gcra} (decision 130).
	 */
	private static Reply parseShort(List<Object> values, int from, List<RateLimitCheck> checks, long now) {
		int n = checks.size();
		List<Decision> decisions = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			RateLimitPolicy policy = checks.get(i).policy();
			long ahead = number(values, from + i);
			long interval = policy.intervalMicros();
			long tolerance = policy.capacity() * interval;
			long remaining = Math.floorDiv(tolerance - ahead, interval);
			long nextAfter = (ahead > 0) ? ahead - tolerance + (remaining + 1) * interval : 0;
			decisions.add(Decision.ofMicros(true, policy.limit(), remaining, ahead, 0, nextAfter, now));
		}
		return new Reply(true, now, decisions, new boolean[n]);
	}

	private static long number(List<Object> values, int index) {
		return (Long) values.get(index);
	}

	/** Returns the arguments that depend on the policy only: algorithm, and its two numbers. */
	private static byte[][] policyArguments(RateLimitPolicy policy) {
		if (policy.calendar() != null) {
			return new byte[][] { CALENDAR_WINDOW, ascii(policy.periodMicros()), ascii(policy.limit()) };
		}
		return switch (policy.algorithm()) {
			case TOKEN_BUCKET, LEAKY_BUCKET, GCRA -> new byte[][] { ascii(scriptId(policy)),
					ascii(policy.intervalMicros()), ascii(policy.capacity()) };
			default -> new byte[][] { ascii(policy.algorithm().scriptId()), ascii(policy.periodMicros()),
					ascii(policy.limit()) };
		};
	}

	private static long micros(Instant instant) {
		return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
	}

	/** Returns the script's algorithm id: a policy that warms up has its own (10 GCRA, 11 token bucket). */
	private static int scriptId(RateLimitPolicy policy) {
		if (policy.warmsUp()) {
			return (policy.algorithm() == Algorithm.GCRA) ? WARM_GCRA : WARM_TOKEN_BUCKET;
		}
		return policy.algorithm().scriptId();
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@Override
	public String toString() {
		return this.script.toString();
	}

}
