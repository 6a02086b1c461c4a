package dev.ratelimit.resilience;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.CalendarPeriod.Unit;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A remembered denial of a calendar quota holds in its zone only: a subject whose zone changes (a rule's
 * {@code zone-key}) counts in another window, which the store decides.
 */
class DenyCacheZoneTests {

	@Test
	void aDenialInOneZoneDoesNotHoldInAnother() {
		DenyCache cache = new DenyCache(100, Duration.ZERO, () -> 0L);
		RateLimitPolicy berlin = RateLimitPolicy.calendar("daily", 2,
				CalendarPeriod.of(Unit.DAY, ZoneId.of("Europe/Berlin")));
		RateLimitPolicy newYork = RateLimitPolicy.calendar("daily", 2,
				CalendarPeriod.of(Unit.DAY, ZoneId.of("America/New_York")));
		List<RateLimitCheck> inBerlin = List.of(new RateLimitCheck(berlin, "mover", 1, false));
		cache.remember(new Verdict(inBerlin,
				List.of(new Decision(false, 2, 0, Duration.ofHours(13), Duration.ofHours(13)))));
		assertThat(cache.get(inBerlin)).isNotNull();
		assertThat(cache.get(List.of(new RateLimitCheck(newYork, "mover", 1, false)))).isNull();
	}

}
