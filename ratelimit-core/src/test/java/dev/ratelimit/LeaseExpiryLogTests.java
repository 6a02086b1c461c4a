package dev.ratelimit;

import dev.ratelimit.lease.LeaseExpiryLog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reclaimed leases are logged at WARN with the rule, never the key, at most once per rule every 10 s.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseExpiryLogTests {

	private final AtomicLong nanos = new AtomicLong(-3);

	private final LeaseExpiryLog log = new LeaseExpiryLog(this.nanos::get, Duration.ofSeconds(10).toNanos());

	private final RateLimitPolicy uploads = RateLimitPolicy.concurrency("uploads", 8, Duration.ofMinutes(1));

	private final RateLimitPolicy exports = RateLimitPolicy.concurrency("exports", 8, Duration.ofMinutes(1));

	@Test
	void reclaimedSlotsAreLoggedWithTheRuleAndNeverTheKey(CapturedOutput output) {
		reclaim(this.uploads, "alice@example.com", 2);
		assertThat(output).contains("WARN").contains("Concurrency rule 'uploads' reclaimed 2 expired lease slots:")
			.doesNotContain("alice");
	}

	@Test
	void slotsReclaimedWithinTenSecondsOfALineAreCountedInTheRulesNextLine(CapturedOutput output) {
		reclaim(this.uploads, "a", 1);
		this.nanos.addAndGet(Duration.ofSeconds(3).toNanos());
		reclaim(this.uploads, "b", 2);
		reclaim(this.exports, "c", 1);
		this.nanos.addAndGet(Duration.ofSeconds(7).minusNanos(1).toNanos());
		reclaim(this.uploads, "d", 4);
		assertThat(lines(output, "'uploads'")).as("one line in the first 10 s").isOne();
		assertThat(lines(output, "'exports'")).as("each rule has its own interval").isOne();
		this.nanos.incrementAndGet();
		reclaim(this.uploads, "e", 1);
		assertThat(lines(output, "'uploads'")).isEqualTo(2);
		assertThat(output).contains("Concurrency rule 'uploads' reclaimed 7 expired lease slots:");
	}

	@Test
	void inspectionsAndDecisionsWithoutReclaimedSlotsAreNotLogged(CapturedOutput output) {
		RateLimitCheck inspection = new RateLimitCheck(this.uploads, "a", 0, false);
		this.log.onVerdict(new Verdict(List.of(inspection), List.of(allowed().withLease(null, 3))),
				RateLimitListener.Source.STORE);
		this.log.onVerdict(new Verdict(List.of(RateLimitCheck.of(this.uploads, "a")), List.of(allowed())),
				RateLimitListener.Source.STORE);
		assertThat(output).doesNotContain("reclaimed");
	}

	private void reclaim(RateLimitPolicy policy, String subject, long slots) {
		this.log.onVerdict(new Verdict(List.of(RateLimitCheck.of(policy, subject)),
				List.of(allowed().withLease(null, slots))), RateLimitListener.Source.STORE);
	}

	private static Decision allowed() {
		return new Decision(true, 8, 7, Duration.ofSeconds(1), Duration.ZERO);
	}

	private static long lines(CapturedOutput output, String text) {
		return output.getAll().lines().filter((line) -> line.contains(text) && line.contains("reclaimed")).count();
	}

}
