package dev.ratelimit.lists;

import java.util.Locale;

/** The two lists: entries that are refused before any rule, and entries that skip rules. */
public enum ListKind {

	/** Refused before any rule is checked (403 by default). */
	DENY,

	/** Skips the rules the entry names (every rule when it names none). */
	ALLOW;

	/** Returns the name as in properties and paths: {@code deny} or {@code allow}. */
	public String configName() {
		return name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Returns the list of a name.
	 * @param name {@code deny} or {@code allow}
	 * @return the list, or {@code null} for any other name
	 */
	public static @org.jspecify.annotations.Nullable ListKind of(String name) {
		for (ListKind kind : values()) {
			if (kind.configName().equals(name)) {
				return kind;
			}
		}
		return null;
	}

}
