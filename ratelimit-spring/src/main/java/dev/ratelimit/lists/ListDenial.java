package dev.ratelimit.lists;

/**
 * A request or call refused by the deny list before any rule was checked.
 *
 * @param rule the rule whose subject (or client address) the entry matched
 * @param entry the entry that matched
 * @param status the HTTP status to answer with ({@code ratelimit.lists.deny-status}, 403 by default)
 */
public record ListDenial(String rule, ListEntry entry, int status) {
}
