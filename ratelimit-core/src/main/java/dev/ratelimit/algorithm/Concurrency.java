package dev.ratelimit.algorithm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Concurrency limit with leases: at most {@code limit} units in flight at once. An admitted request of cost
 * {@code c} holds {@code c} slots under its lease id, named {@code <id>:1} to {@code <id>:c}, each with the lease's
 * expiry ({@code now + leaseTimeout}); a slot counts while its expiry is after now. A slot stops counting when its
 * lease is {@link #release released} or expires; {@link #renew} pushes a held lease's expiry forward. Expired slots
 * are removed (reclaimed) by the next admission. A state whose slots have all expired is the same as no state: the
 * store forgets it when its latest lease expires.
 * <ul>
 * <li>remaining = {@code limit - held} (free slots)</li>
 * <li>resetAfter = time until the earliest held slot expires, 0 when none is held</li>
 * <li>nextAfter = 0: slots come back when requests end, at no time known in advance</li>
 * <li>retryAfter when denied = time until the {@code (held + cost - limit)}-th earliest held slot expires, clamped
 * to [{@value #MIN_RETRY_MICROS}, {@value #MAX_RETRY_MICROS}] µs: a suggested wait, since a release usually frees
 * slots long before they expire</li>
 * </ul>
 * The state mirrors the Redis sorted set: slots ordered by expiry, then by member.
 *
 * @param leaseTimeoutMicros how long a lease is held without a renewal
 * @param limit the most units in flight
 * @param leaseId the id under which an admission holds its slots, and on which {@link #release} and {@link #renew}
 * act
 */
public record Concurrency(long leaseTimeoutMicros, long limit, String leaseId)
		implements LimitAlgorithm<Concurrency.State> {

	/** The shortest {@code retryAfter} of a denial. */
	public static final long MIN_RETRY_MICROS = 1_000;

	/** The longest {@code retryAfter} of a denial that a later admission can satisfy. */
	public static final long MAX_RETRY_MICROS = 1_000_000;

	private static final Comparator<Slot> ORDER = Comparator.comparingLong(Slot::expiresAt)
		.thenComparing(Slot::member);

	/** @param slots the slots, ordered by expiry, then by member */
	public record State(List<Slot> slots) {

		public State {
			slots = List.copyOf(slots);
		}

	}

	/**
	 * One unit held by a lease.
	 * @param member {@code <lease id>:<k>} for the lease's k-th slot
	 * @param expiresAt when it stops counting, in microseconds
	 */
	public record Slot(String member, long expiresAt) {
	}

	/**
	 * The result of a release or renewal.
	 * @param held whether the lease was held (not expired) when asked
	 * @param state the new state, or {@code null} when no slot is left
	 * @param ttlMicros how long the new state must be kept: until its latest slot expires (0 or less: not at all)
	 */
	public record Change(boolean held, @Nullable State state, long ttlMicros) {
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		List<Slot> live = live(state, now);
		int held = live.size();
		long reset = (held > 0) ? live.get(0).expiresAt() - now : 0;
		if (cost > this.limit) {
			return Outcome.never(this.limit - held, reset, 0, state);
		}
		if (held + cost > this.limit) {
			long blocking = live.get((int) (held + cost - this.limit) - 1).expiresAt();
			long retry = Math.min(MAX_RETRY_MICROS, Math.max(MIN_RETRY_MICROS, blocking - now));
			return Outcome.denied(this.limit - held, reset, 0, retry, state);
		}
		if (cost == 0) {
			return Outcome.allowed(this.limit - held, reset, 0, state, ttl(state, now));
		}
		long expiresAt = now + this.leaseTimeoutMicros;
		List<Slot> next = new ArrayList<>(held + (int) cost);
		for (Slot slot : live) {
			if (!isSlotOf(slot, cost)) {
				next.add(slot);
			}
		}
		for (long k = 1; k <= cost; k++) {
			next.add(new Slot(member(k), expiresAt));
		}
		next.sort(ORDER);
		long firstExpiry = (held > 0) ? Math.min(live.get(0).expiresAt(), expiresAt) : expiresAt;
		State admitted = new State(next);
		return Outcome.allowed(this.limit - held - cost, firstExpiry - now, 0, admitted, ttl(admitted, now));
	}

	/**
	 * Returns how many expired slots an admission at {@code now} removes: every expired slot while some slot is still
	 * held, else none (a state whose slots have all expired counts as no state).
	 */
	public long reclaimable(@Nullable State state, long now) {
		if (state == null || live(state, now).isEmpty()) {
			return 0;
		}
		return state.slots().size() - live(state, now).size();
	}

	/**
	 * Releases the lease {@link #leaseId} of {@code slots} slots: removes them, whether or not they have expired.
	 * @param state the state
	 * @param now the current time in microseconds
	 * @param slots the lease's slots
	 * @return whether it was held, and the new state
	 */
	public Change release(@Nullable State state, long now, long slots) {
		Slot first = first(state);
		if (state == null || first == null) {
			return new Change(false, state, ttl(state, now));
		}
		List<Slot> next = new ArrayList<>(state.slots().size());
		for (Slot slot : state.slots()) {
			if (!isSlotOf(slot, slots)) {
				next.add(slot);
			}
		}
		State released = next.isEmpty() ? null : new State(next);
		return new Change(first.expiresAt() > now, released, ttl(released, now));
	}

	/**
	 * Renews the lease {@link #leaseId} of {@code slots} slots if it is held: its slots expire a lease timeout from
	 * now, or later if they already did. An expired lease is left as it is.
	 * @param state the state
	 * @param now the current time in microseconds
	 * @param slots the lease's slots
	 * @return whether it was held (and renewed), and the new state
	 */
	public Change renew(@Nullable State state, long now, long slots) {
		Slot first = first(state);
		if (state == null || first == null || first.expiresAt() <= now) {
			return new Change(false, state, ttl(state, now));
		}
		long expiresAt = Math.max(first.expiresAt(), now + this.leaseTimeoutMicros);
		List<Slot> next = new ArrayList<>(state.slots().size());
		for (Slot slot : state.slots()) {
			next.add(isSlotOf(slot, slots) ? new Slot(slot.member(), expiresAt) : slot);
		}
		next.sort(ORDER);
		State renewed = new State(next);
		return new Change(true, renewed, ttl(renewed, now));
	}

	/** Returns the member of the lease's k-th slot. */
	public String member(long k) {
		return this.leaseId + ':' + k;
	}

	/** Returns whether a slot is one of {@code <leaseId>:1} to {@code <leaseId>:<slots>}. */
	private boolean isSlotOf(Slot slot, long slots) {
		String member = slot.member();
		int colon = this.leaseId.length();
		if (member.length() <= colon + 1 || member.charAt(colon) != ':' || !member.startsWith(this.leaseId)
				|| member.charAt(colon + 1) == '0' || member.length() - colon - 1 > 10) {
			return false;
		}
		long k = 0;
		for (int i = colon + 1; i < member.length(); i++) {
			char digit = member.charAt(i);
			if (digit < '0' || digit > '9') {
				return false;
			}
			k = k * 10 + (digit - '0');
		}
		return k <= slots;
	}

	private @Nullable Slot first(@Nullable State state) {
		if (state != null) {
			String member = member(1);
			for (Slot slot : state.slots()) {
				if (slot.member().equals(member)) {
					return slot;
				}
			}
		}
		return null;
	}

	private static List<Slot> live(@Nullable State state, long now) {
		if (state == null) {
			return List.of();
		}
		List<Slot> slots = state.slots();
		int firstLive = 0;
		while (firstLive < slots.size() && slots.get(firstLive).expiresAt() <= now) {
			firstLive++;
		}
		return slots.subList(firstLive, slots.size());
	}

	private static long ttl(@Nullable State state, long now) {
		return (state != null) ? state.slots().get(state.slots().size() - 1).expiresAt() - now : 0;
	}

}
