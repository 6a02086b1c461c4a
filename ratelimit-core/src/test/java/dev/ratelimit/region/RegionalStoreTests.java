package dev.ratelimit.region;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two regions, each with its own in-memory region store (the reference), replicating to each other by hand on a
 * driven clock: what each decides before and after the entries cross, across a cut link, and what replication
 * reports.
 */
class RegionalStoreTests {

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final RateLimitPolicy policy = RateLimitPolicy.of("partner", Algorithm.FIXED_WINDOW, 10,
			Duration.ofMinutes(1));

	private final RegionCounters euCounters = new RegionCounters(this.clock::micros);

	private final RegionCounters usCounters = new RegionCounters(this.clock::micros);

	private final Link toUs = new Link(this.usCounters);

	private final Link toEu = new Link(this.euCounters);

	private final RegionalStore eu = store("eu", this.euCounters, Map.of("us", this.toUs));

	private final RegionalStore us = store("us", this.usCounters, Map.of("eu", this.toEu));

	private RegionalStore store(String region, RegionCounters counters, Map<String, RegionBackend> peers) {
		return new RegionalStore(new LocalRateLimitStore(1000, this.clock), counters, region, peers,
				"partner"::equals, Duration.ofSeconds(1), 1000, this.clock::micros, () -> this.clock.micros() * 1000);
	}

	private long admitted(RegionalStore store, int requests) {
		long admitted = 0;
		for (int i = 0; i < requests; i++) {
			if (store.evaluate(List.of(RateLimitCheck.of(this.policy, "acme"))).get(0).allowed()) {
				admitted++;
			}
		}
		return admitted;
	}

	private long remaining(RegionalStore store) {
		return store.peek(List.of(RateLimitCheck.of(this.policy, "acme", 0))).get(0).remaining();
	}

	@Test
	void replicatedEntriesCountInTheOtherRegion() {
		assertThat(admitted(this.eu, 4)).isEqualTo(4);
		assertThat(remaining(this.us)).as("before replication").isEqualTo(10);
		this.eu.replicate().join();
		assertThat(remaining(this.us)).isEqualTo(6);
		assertThat(admitted(this.us, 10)).as("what is left of the global limit").isEqualTo(6);
		this.us.replicate().join();
		assertThat(admitted(this.eu, 10)).isZero();
		assertThat(this.eu.peers()).singleElement().satisfies((peer) -> {
			assertThat(peer.region()).isEqualTo("us");
			assertThat(peer.reachable()).isTrue();
			assertThat(peer.pending()).isZero();
			assertThat(peer.replicated()).isEqualTo(1);
		});
	}

	@Test
	void aCutLinkKeepsEachRegionDecidingAndTheyConvergeWhenItReturns() {
		this.toUs.cut = true;
		this.toEu.cut = true;
		assertThat(admitted(this.eu, 8)).isEqualTo(8);
		assertThat(admitted(this.us, 8)).as("us has not seen eu's admissions").isEqualTo(8);
		this.eu.replicate().join();
		this.us.replicate().join();
		this.clock.advance(Duration.ofSeconds(5));
		this.eu.replicate().join();
		assertThat(this.eu.peers()).singleElement().satisfies((peer) -> {
			assertThat(peer.reachable()).isFalse();
			assertThat(peer.failures()).isEqualTo(2);
			assertThat(peer.pending()).isEqualTo(1);
			assertThat(peer.lag()).isEqualTo(Duration.ofSeconds(5));
			assertThat(peer.lastFailure()).contains("link cut");
		});
		this.toUs.cut = false;
		this.toEu.cut = false;
		this.eu.replicate().join();
		this.us.replicate().join();
		assertThat(this.euCounters.entries(this.policy, "acme"))
			.isEqualTo(this.usCounters.entries(this.policy, "acme"));
		assertThat(remaining(this.eu)).as("16 admitted of 10: the over-admission of the cut").isZero();
		assertThat(this.eu.peers().get(0).reachable()).isTrue();
		assertThat(this.eu.peers().get(0).lag()).isZero();
	}

	@Test
	void repeatedAndReorderedReplicationCountsOnce() {
		admitted(this.eu, 3);
		this.toUs.cut = true;
		this.eu.replicate().join();
		admitted(this.eu, 2);
		this.toUs.cut = false;
		this.eu.replicate().join();
		this.eu.replicate().join();
		// an old shipment arriving late changes nothing
		this.usCounters.merge(List.of(new RegionEntries(this.policy, "acme",
				Map.of(RegionCounters.field("eu", RegionCounters.windowOf(this.policy, "acme", this.clock.micros())),
						3L))))
			.join();
		assertThat(remaining(this.us)).isEqualTo(5);
	}

	@Test
	void refundsReplicateAsTheirOwnEntries() {
		admitted(this.eu, 5);
		this.eu.refund(List.of(new Consumption(this.policy, "acme", 2, this.clock.instant())));
		this.eu.replicate().join();
		assertThat(remaining(this.us)).isEqualTo(7);
		assertThat(remaining(this.eu)).isEqualTo(7);
	}

	@Test
	void otherRulesAreDecidedInTheSharedStore() {
		RateLimitPolicy regional = RateLimitPolicy.of("regional", Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1));
		assertThat(this.eu.evaluate(List.of(RateLimitCheck.of(regional, "acme"))).get(0).allowed()).isTrue();
		this.eu.replicate().join();
		assertThat(this.us.evaluate(List.of(RateLimitCheck.of(regional, "acme"))).get(0).allowed()).isTrue();
		assertThat(this.euCounters.entries(regional, "acme")).isEmpty();
	}

	@Test
	void aRequestDeniedByAnotherRuleGivesItsGlobalUnitsBack() {
		RateLimitPolicy strict = RateLimitPolicy.of("strict", Algorithm.GCRA, 1, Duration.ofMinutes(1));
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(this.policy, "acme"), RateLimitCheck.of(strict, "acme"));
		assertThat(this.eu.evaluate(request)).allMatch((decision) -> decision.allowed());
		assertThat(this.eu.evaluate(request).get(1).allowed()).isFalse();
		assertThat(remaining(this.eu)).isEqualTo(9);
		this.eu.replicate().join();
		assertThat(remaining(this.us)).as("the refund replicates with the count").isEqualTo(9);
	}

	/**
	 * A request settled after its response that cost more than it reserved is charged into this region's entry: the
	 * debt denies here at once and in the other region once replicated; a give-back replicates likewise.
	 */
	@Test
	void aSettlementChargesIntoTheGlobalCountAndReplicates() {
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(this.policy, "acme", 4));
		Consumption reserved = new Verdict(request, this.eu.evaluate(request)).consumptions().get(0);
		Decision settled = this.eu.settle(List.of(new Settlement(reserved, 13))).get(0);
		assertThat(settled.allowed()).as("13 of 10: in debt").isFalse();
		assertThat(admitted(this.eu, 1)).isZero();
		this.eu.replicate().join();
		assertThat(admitted(this.us, 1)).as("the debt replicates with the count").isZero();
		// a request of the same window settled in the other region at 0: its 4 come back
		this.us.settle(List.of(new Settlement(new Consumption(this.policy, "acme", 4, reserved.at()), 0)));
		this.us.replicate().join();
		assertThat(remaining(this.eu)).as("13 - 4 given back in the other region").isEqualTo(1);
	}

	/** A peer behind a link that can be cut. */
	private static final class Link implements RegionBackend {

		private final RegionBackend peer;

		volatile boolean cut;

		Link(RegionBackend peer) {
			this.peer = peer;
		}

		@Override
		public CompletableFuture<RegionReply> count(List<RateLimitCheck> checks, String region, boolean commit) {
			throw new UnsupportedOperationException();
		}

		@Override
		public CompletableFuture<RegionReply> refund(List<Consumption> consumptions, String region) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void clear(RateLimitPolicy policy, String subject) {
			throw new UnsupportedOperationException();
		}

		@Override
		public CompletableFuture<Void> merge(List<RegionEntries> entries) {
			return this.cut ? CompletableFuture.failedFuture(new IllegalStateException("link cut"))
					: this.peer.merge(entries);
		}

	}

}
