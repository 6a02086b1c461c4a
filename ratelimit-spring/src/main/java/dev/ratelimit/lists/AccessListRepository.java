package dev.ratelimit.lists;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Where the entries of the allow and deny lists made at runtime are kept so that every instance applies them.
 */
public interface AccessListRepository {

	/** How many runtime entries a list may hold unless told otherwise ({@code ratelimit.lists.max-entries}). */
	int DEFAULT_MAX_ENTRIES = 1000;

	/**
	 * Returns the entries in force (lapsed ones left out) of both lists.
	 * @return the entries by list
	 */
	Map<ListKind, List<ListEntry>> load();

	/**
	 * Adds an entry to a list, or replaces the entry of the same text (its rules and time to live), unless the list
	 * holds as many entries in force as allowed.
	 * @param kind the list
	 * @param entry the entry (its expiry is ignored)
	 * @param ttl how long it lasts, or {@code null} until removed
	 * @return {@code false} when the list is full
	 */
	boolean add(ListKind kind, ListEntry entry, @Nullable Duration ttl);

	/**
	 * Removes an entry of a list.
	 * @param kind the list
	 * @param text the entry's canonical text
	 * @return whether it was there
	 */
	boolean remove(ListKind kind, String text);

	/**
	 * Returns a number that changes with every change of the lists, read cheaply to find a missed change.
	 * @return the version
	 */
	long version();

	/**
	 * An in-memory repository for a single instance ({@code ratelimit.store=local}).
	 * @param maxEntries how many entries a list may hold
	 * @param clock the time entries lapse by
	 * @return the repository
	 */
	static AccessListRepository inMemory(int maxEntries, Clock clock) {
		return new AccessListRepository() {

			private final Map<ListKind, Map<String, ListEntry>> lists = new EnumMap<>(Map.of(ListKind.DENY,
					new LinkedHashMap<>(), ListKind.ALLOW, new LinkedHashMap<>()));

			private long version;

			@Override
			public synchronized Map<ListKind, List<ListEntry>> load() {
				long now = clock.millis();
				Map<ListKind, List<ListEntry>> loaded = new EnumMap<>(ListKind.class);
				this.lists.forEach((kind, entries) -> loaded.put(kind,
						entries.values().stream().filter((entry) -> entry.activeAt(now)).toList()));
				return loaded;
			}

			@Override
			public synchronized boolean add(ListKind kind, ListEntry entry, @Nullable Duration ttl) {
				long now = clock.millis();
				Map<String, ListEntry> entries = this.lists.get(kind);
				entries.values().removeIf((each) -> !each.activeAt(now));
				if (!entries.containsKey(entry.text()) && entries.size() >= maxEntries) {
					return false;
				}
				entries.put(entry.text(), entry.with(entry.rules(), (ttl != null) ? now + ttl.toMillis() : 0));
				this.version++;
				return true;
			}

			@Override
			public synchronized boolean remove(ListKind kind, String text) {
				boolean removed = this.lists.get(kind).remove(text) != null;
				this.version++;
				return removed;
			}

			@Override
			public synchronized long version() {
				return this.version;
			}

		};
	}

	/**
	 * Encodes an entry's rules and expiry as kept in a store: {@code <expiresAtMillis>;<rule>,<rule>}.
	 * @param rules the rules
	 * @return the encoded rules (after the expiry, which the store writes)
	 */
	static String encodeRules(Set<String> rules) {
		return String.join(",", rules);
	}

	/**
	 * Decodes an entry kept in a store.
	 * @param text the entry's text
	 * @param value {@code <expiresAtMillis>;<rules>}
	 * @return the entry
	 * @throws IllegalArgumentException when it is malformed
	 */
	static ListEntry decode(String text, String value) {
		int semicolon = value.indexOf(';');
		if (semicolon < 0) {
			throw new IllegalArgumentException("no ';' in '" + value + "'");
		}
		long expiresAt = Long.parseLong(value.substring(0, semicolon));
		String rules = value.substring(semicolon + 1);
		List<String> names = new ArrayList<>();
		for (String rule : rules.split(",")) {
			if (!rule.isEmpty()) {
				names.add(rule);
			}
		}
		return ListEntry.parse(text).with(Set.copyOf(names), expiresAt);
	}

}
