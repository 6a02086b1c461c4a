package dev.ratelimit.lists;

import java.util.List;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.Verdict;

/**
 * Thrown (or signalled) by a {@code @RateLimited} call whose subject, or client network, the deny list holds: it was
 * refused before any rule was checked. A {@link RateLimitExceededException}, so that a fallback method answers it and
 * the starter's exception handlers answer it, with {@link ListDenial#status()} (403 by default); its verdict is empty.
 */
public class ListDeniedException extends RateLimitExceededException {

	private final transient ListDenial denial;

	/**
	 * @param denial the entry that refused the call
	 */
	public ListDeniedException(ListDenial denial) {
		super("Refused by the deny list (rule '" + denial.rule() + "')", new Verdict(List.of(), List.of()));
		this.denial = denial;
	}

	/** Returns the entry that refused the call. */
	public ListDenial getDenial() {
		return this.denial;
	}

}
