package dev.ratelimit.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.ratelimit.actuate.RateLimitsEndpoint.InvalidOverrideException;
import dev.ratelimit.lists.AccessListRepository;
import dev.ratelimit.lists.ListEntry;
import dev.ratelimit.lists.ListKind;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.rule.Periods;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The allow and deny lists' part of the {@code ratelimits} endpoint: lists them, adds and removes runtime entries
 * through the shared {@link AccessListRepository} (which tells every instance), applies the change to this instance's
 * copy at once, and logs each change with who made it.
 */
public class RateLimitListsAdmin {

	private static final Log logger = LogFactory.getLog(RateLimitListsAdmin.class);

	private final RateLimitRules rules;

	private final RateLimitLists lists;

	private final AccessListRepository repository;

	private final int maxEntries;

	/**
	 * @param rules the rules, whose names allow entries may give
	 * @param lists this instance's copy of the lists
	 * @param repository where runtime entries are shared
	 * @param maxEntries how many runtime entries a list may hold, as said in errors
	 */
	public RateLimitListsAdmin(RateLimitRules rules, RateLimitLists lists, AccessListRepository repository,
			int maxEntries) {
		this.rules = rules;
		this.lists = lists;
		this.repository = repository;
		this.maxEntries = maxEntries;
	}

	/** Returns both lists, configured and runtime entries, as this instance holds them (lapsed ones left out). */
	public ListsDescriptor describe() {
		long now = this.lists.nowMillis();
		return new ListsDescriptor(describe(ListKind.DENY, now), describe(ListKind.ALLOW, now), this.maxEntries);
	}

	private List<EntryDescriptor> describe(ListKind kind, long now) {
		List<EntryDescriptor> entries = new ArrayList<>();
		this.lists.configured(kind).forEach((entry) -> entries.add(describe(entry, "configuration", now)));
		this.lists.runtime(kind).stream().filter((entry) -> entry.activeAt(now))
			.forEach((entry) -> entries.add(describe(entry, "runtime", now)));
		return entries;
	}

	private static EntryDescriptor describe(ListEntry entry, String source, long now) {
		long expiry = entry.expiresAtMillis();
		return new EntryDescriptor(entry.text(), entry.rules().isEmpty() ? null : List.copyOf(entry.rules()),
				(expiry != 0) ? Instant.ofEpochMilli(expiry).toString() : null,
				(expiry != 0) ? Duration.ofMillis(Math.max(0, expiry - now)).toString() : null, source);
	}

	/**
	 * Adds an entry to a list on every instance, or replaces the runtime entry of the same text.
	 * @param list {@code deny} or {@code allow}
	 * @param entry the entry: a subject, an IP address or a CIDR network
	 * @param ttl how long it lasts ({@link Periods} forms), or {@code null} until removed
	 * @param rules (allow list) the rules it skips, or {@code null} for every rule
	 * @param who who asked, for the log
	 * @return the lists as they are now
	 * @throws InvalidOverrideException for an unknown list, a missing or invalid entry, time to live or rule, and a
	 * full list
	 */
	public ListsDescriptor add(String list, @Nullable String entry, @Nullable String ttl, @Nullable List<String> rules,
			String who) {
		ListKind kind = kind(list);
		ListEntry parsed = parse(entry);
		Duration lifetime = null;
		if (ttl != null) {
			try {
				lifetime = Periods.parse(ttl);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidOverrideException("ttl " + ex.getMessage());
			}
		}
		Set<String> names = new LinkedHashSet<>();
		if (rules != null) {
			if (kind == ListKind.DENY) {
				throw new InvalidOverrideException("a deny entry refuses the client for every rule; 'rules' is for"
						+ " the allow list");
			}
			if (rules.isEmpty()) {
				throw new InvalidOverrideException("give the rules the entry skips, e.g. \"rules\": [\"api\"], or"
						+ " leave 'rules' out for every rule");
			}
			for (String rule : rules) {
				if (rule == null || this.rules.configured(rule).isEmpty()) {
					throw new InvalidOverrideException("unknown rule '" + rule + "'; the rules are "
							+ this.rules.all().stream().map(RateLimitRule::name).toList());
				}
				names.add(rule);
			}
		}
		if (!this.repository.add(kind, parsed.with(names, 0), lifetime)) {
			throw new InvalidOverrideException("the " + kind.configName() + " list holds as many entries as"
					+ " ratelimit.lists.max-entries (" + this.maxEntries + ") allows; remove one first, or raise it");
		}
		reload();
		logger.info("Rate limit " + kind.configName() + " list: '" + parsed.text() + "' added"
				+ ((lifetime != null) ? " for " + lifetime : "") + (names.isEmpty() ? "" : " for rules " + names)
				+ " by " + who);
		return describe();
	}

	/**
	 * Removes a runtime entry of a list on every instance.
	 * @param list {@code deny} or {@code allow}
	 * @param entry the entry, as added (an address or network in any of its forms)
	 * @param who who asked, for the log
	 * @return the lists as they are now, or {@code null} when the list had no such runtime entry
	 * @throws InvalidOverrideException for an unknown list, a missing or invalid entry, and a configured entry
	 */
	public @Nullable ListsDescriptor remove(String list, @Nullable String entry, String who) {
		ListKind kind = kind(list);
		ListEntry parsed = parse(entry);
		boolean runtime = this.lists.runtime(kind).stream().anyMatch((each) -> each.text().equals(parsed.text()));
		if (!runtime && this.lists.configured(kind).stream().anyMatch((each) -> each.text().equals(parsed.text()))) {
			throw new InvalidOverrideException("'" + parsed.text() + "' is configured; remove it from ratelimit.lists."
					+ kind.configName());
		}
		boolean removed = this.repository.remove(kind, parsed.text());
		reload();
		if (!removed) {
			return null;
		}
		logger.info("Rate limit " + kind.configName() + " list: '" + parsed.text() + "' removed by " + who);
		return describe();
	}

	private void reload() {
		this.lists.replaceRuntime(this.repository.load());
	}

	private static ListKind kind(String list) {
		ListKind kind = ListKind.of(list);
		if (kind == null) {
			throw new InvalidOverrideException("unknown list '" + list + "'; the lists are deny and allow");
		}
		return kind;
	}

	private static ListEntry parse(@Nullable String entry) {
		if (entry == null || entry.isBlank()) {
			throw new InvalidOverrideException("give the entry: a subject, an IP address or a CIDR network, e.g."
					+ " {\"entry\": \"203.0.113.0/24\", \"ttl\": \"1h\"}");
		}
		try {
			return ListEntry.parse(entry);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOverrideException(ex.getMessage());
		}
	}

	/**
	 * The allow and deny lists of this instance.
	 * @param deny the deny entries
	 * @param allow the allow entries
	 * @param maxEntries how many runtime entries each list may hold
	 */
	public record ListsDescriptor(List<EntryDescriptor> deny, List<EntryDescriptor> allow, int maxEntries) {
	}

	/**
	 * One entry.
	 * @param entry the subject, address or network, in canonical form
	 * @param rules (allow list) the rules it skips, or {@code null} for every rule
	 * @param expiresAt when it lapses (ISO-8601 instant), or {@code null} when it lasts until removed
	 * @param ttl the time left (ISO-8601 duration), or {@code null}
	 * @param source {@code configuration} ({@code ratelimit.lists.*}) or {@code runtime} (the actuator; shared)
	 */
	public record EntryDescriptor(String entry, @Nullable List<String> rules, @Nullable String expiresAt,
			@Nullable String ttl, String source) {
	}

}
