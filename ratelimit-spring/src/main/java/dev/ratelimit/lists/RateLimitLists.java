package dev.ratelimit.lists;

import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;

/**
 * This instance's copy of the allow and deny lists: the configured entries ({@code ratelimit.lists.deny},
 * {@code ratelimit.lists.allow}) and those made at runtime, which an {@link AccessListSynchronizer} keeps current. A
 * request reads one immutable snapshot and makes no store call; an entry with a time to live carries its absolute
 * expiry and lapses here at that instant without any call. The deny list wins over the allow list.
 */
public final class RateLimitLists {

	private static final RateLimitLists NONE = new RateLimitLists(List.of(), List.of(), 403, Clock.systemUTC(),
			() -> RateLimitListener.NONE);

	private final Map<ListKind, List<ListEntry>> configured;

	private final int denyStatus;

	private final Clock clock;

	private final Supplier<RateLimitListener> listener;

	private volatile Snapshot snapshot;

	/**
	 * @param deny the configured deny entries
	 * @param allow the configured allow entries
	 * @param denyStatus the HTTP status of a denied request
	 * @param clock the time entries lapse by
	 * @param listener told of every request the lists decide (looked up at the first one)
	 */
	public RateLimitLists(List<ListEntry> deny, List<ListEntry> allow, int denyStatus, Clock clock,
			Supplier<RateLimitListener> listener) {
		Map<ListKind, List<ListEntry>> configured = new EnumMap<>(ListKind.class);
		configured.put(ListKind.DENY, List.copyOf(deny));
		configured.put(ListKind.ALLOW, List.copyOf(allow));
		this.configured = configured;
		this.denyStatus = denyStatus;
		this.clock = clock;
		this.listener = listener;
		this.snapshot = Snapshot.of(configured, Map.of());
	}

	/** Returns lists without entries. */
	public static RateLimitLists none() {
		return NONE;
	}

	/** Returns the configured entries of a list. */
	public List<ListEntry> configured(ListKind kind) {
		return this.configured.get(kind);
	}

	/** Returns the entries of a list made at runtime, as last read (lapsed ones included until the next read). */
	public List<ListEntry> runtime(ListKind kind) {
		return this.snapshot.runtime.getOrDefault(kind, List.of());
	}

	/** Returns the current time of these lists, in epoch milliseconds. */
	public long nowMillis() {
		return this.clock.millis();
	}

	/**
	 * Replaces the entries made at runtime, as read from the store.
	 * @param runtime the entries by list
	 */
	public synchronized void replaceRuntime(Map<ListKind, List<ListEntry>> runtime) {
		if (!runtime.equals(this.snapshot.runtime)) {
			Map<ListKind, List<ListEntry>> copy = new EnumMap<>(ListKind.class);
			runtime.forEach((kind, entries) -> copy.put(kind, List.copyOf(entries)));
			this.snapshot = Snapshot.of(this.configured, copy);
		}
	}

	/**
	 * Returns the client address of a request as the lists match it, or {@code null} when no list has a network
	 * (nothing to parse then).
	 * @param request the request
	 * @return the address bytes
	 */
	public byte @Nullable [] address(@Nullable RateLimitRequest request) {
		if (request == null || !this.snapshot.hasNetworks) {
			return null;
		}
		return ClientIp.addressBytes(request.getRemoteAddr());
	}

	/** Returns whether both lists are empty, so that a request need not consult them. */
	public boolean isEmpty() {
		return this.snapshot.empty;
	}

	/**
	 * Returns the denial of a rule's subject, if the deny list holds it or the client's network.
	 * @param rule the rule
	 * @param subject the subject as the rule's key resolved it
	 * @param address the client address ({@link #address}), or {@code null}
	 * @return the denial, or {@code null}
	 */
	public @Nullable ListDenial denial(String rule, String subject, byte @Nullable [] address) {
		ListEntry entry = this.snapshot.lists.get(ListKind.DENY).match(rule, subject, address, this.clock);
		if (entry == null) {
			return null;
		}
		this.listener.get().onListed(rule, subject, true);
		return new ListDenial(rule, entry, this.denyStatus);
	}

	/**
	 * Returns whether the allow list lets a rule's subject skip that rule.
	 * @param rule the rule
	 * @param subject the subject as the rule's key resolved it
	 * @param address the client address ({@link #address}), or {@code null}
	 * @return whether it skips the rule
	 */
	public boolean allows(String rule, String subject, byte @Nullable [] address) {
		if (this.snapshot.lists.get(ListKind.ALLOW).match(rule, subject, address, this.clock) == null) {
			return false;
		}
		this.listener.get().onListed(rule, subject, false);
		return true;
	}

	/** One list, indexed for the per-request path: subjects by text, networks in order. */
	private record Indexed(Map<String, List<ListEntry>> subjects, ListEntry[] networks) {

		static Indexed of(List<ListEntry> entries) {
			Map<String, List<ListEntry>> subjects = new HashMap<>();
			List<ListEntry> networks = new ArrayList<>();
			for (ListEntry entry : entries) {
				if (entry.isNetwork()) {
					networks.add(entry);
				}
				else {
					subjects.computeIfAbsent(entry.text(), (text) -> new ArrayList<>(1)).add(entry);
				}
			}
			return new Indexed(Map.copyOf(subjects), networks.toArray(ListEntry[]::new));
		}

		@Nullable ListEntry match(String rule, String subject, byte @Nullable [] address, Clock clock) {
			if (!this.subjects.isEmpty()) {
				List<ListEntry> bySubject = this.subjects.get(subject);
				if (bySubject != null) {
					for (ListEntry entry : bySubject) {
						if (entry.appliesTo(rule) && (entry.expiresAtMillis() == 0 || entry.activeAt(clock.millis()))) {
							return entry;
						}
					}
				}
			}
			if (address != null) {
				for (ListEntry entry : this.networks) {
					if (entry.contains(address) && entry.appliesTo(rule)
							&& (entry.expiresAtMillis() == 0 || entry.activeAt(clock.millis()))) {
						return entry;
					}
				}
			}
			return null;
		}

	}

	private record Snapshot(Map<ListKind, List<ListEntry>> runtime, Map<ListKind, Indexed> lists,
			boolean hasNetworks, boolean empty) {

		static Snapshot of(Map<ListKind, List<ListEntry>> configured, Map<ListKind, List<ListEntry>> runtime) {
			Map<ListKind, Indexed> lists = new EnumMap<>(ListKind.class);
			boolean networks = false;
			boolean empty = true;
			for (ListKind kind : ListKind.values()) {
				// configured and runtime entries side by side: a runtime entry that lapses uncovers nothing it hid
				List<ListEntry> entries = new ArrayList<>(configured.getOrDefault(kind, List.of()));
				entries.addAll(runtime.getOrDefault(kind, List.of()));
				networks |= entries.stream().anyMatch(ListEntry::isNetwork);
				empty &= entries.isEmpty();
				lists.put(kind, Indexed.of(entries));
			}
			return new Snapshot(runtime, lists, networks, empty);
		}

	}

}
