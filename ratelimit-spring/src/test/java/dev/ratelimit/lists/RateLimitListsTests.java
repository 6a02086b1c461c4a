package dev.ratelimit.lists;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Entries parse into subjects and IPv4/IPv6 networks in canonical form; a request's subject or client address is
 * matched by the deny list (which wins) and the allow list (for the rules an entry names), and entries with a time to
 * live lapse on a driven clock without anything being read again.
 */
class RateLimitListsTests {

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final List<String> listed = new ArrayList<>();

	private final RateLimitListener listener = new RateLimitListener() {

		@Override
		public void onListed(String rule, String subject, boolean denied) {
			RateLimitListsTests.this.listed.add((denied ? "deny " : "allow ") + rule + " " + subject);
		}

	};

	@Test
	void entriesAreSubjectsOrNetworksInCanonicalForm() {
		assertThat(ListEntry.parse(" user-42 ").text()).isEqualTo("user-42");
		assertThat(ListEntry.parse("user-42").isNetwork()).isFalse();
		assertThat(ListEntry.parse("203.0.113.0/24").text()).isEqualTo("203.0.113.0/24");
		assertThat(ListEntry.parse("203.0.113.77/24").text()).as("host bits masked").isEqualTo("203.0.113.0/24");
		assertThat(ListEntry.parse("198.51.100.9").text()).isEqualTo("198.51.100.9");
		assertThat(ListEntry.parse("198.51.100.9/32").text()).isEqualTo("198.51.100.9");
		assertThat(ListEntry.parse("2001:DB8:0:0::/32").text()).isEqualTo("2001:db8::/32");
		assertThat(ListEntry.parse("2001:db8::7").text()).isEqualTo("2001:db8::7");
		assertThat(ListEntry.parse("::ffff:203.0.113.7").text()).as("IPv4-mapped").isEqualTo("203.0.113.7");
		assertThat(ListEntry.parse("0.0.0.0/0").text()).isEqualTo("0.0.0.0/0");
	}

	@Test
	void malformedAddressesAndNetworksAreRefusedWithTheReason() {
		assertThatIllegalArgumentException().isThrownBy(() -> ListEntry.parse("203.0.113.0/33"))
			.withMessageContaining("invalid prefix length; an IPv4 network's is between 0 and 32");
		assertThatIllegalArgumentException().isThrownBy(() -> ListEntry.parse("2001:db8::/129"))
			.withMessageContaining("between 0 and 128");
		assertThatIllegalArgumentException().isThrownBy(() -> ListEntry.parse("203.0.113.0/x"))
			.withMessageContaining("invalid prefix length");
		assertThatIllegalArgumentException().isThrownBy(() -> ListEntry.parse("999.1.2.3"))
			.withMessageContaining("not a valid IPv4 address or network");
		assertThatIllegalArgumentException().isThrownBy(() -> ListEntry.parse("  "))
			.withMessageContaining("blank");
		assertThatIllegalArgumentException().isThrownBy(() -> ListEntry.parse("x".repeat(513)))
			.withMessageContaining("at most 512");
		assertThatIllegalArgumentException().isThrownBy(() -> ListEntry.parse("a").with(Set.of("no spaces"), 0))
			.withMessageContaining("not a rule name");
	}

	@Test
	void networksContainTheirAddressesOnly() {
		ListEntry v4 = ListEntry.parse("203.0.113.0/23");
		assertThat(v4.contains(ClientIp.addressBytes("203.0.112.1"))).isTrue();
		assertThat(v4.contains(ClientIp.addressBytes("203.0.113.255"))).isTrue();
		assertThat(v4.contains(ClientIp.addressBytes("203.0.114.0"))).isFalse();
		ListEntry v6 = ListEntry.parse("2001:db8::/32");
		assertThat(v6.contains(ClientIp.addressBytes("2001:db8:1:2::7"))).isTrue();
		assertThat(v6.contains(ClientIp.addressBytes("2001:db9::7"))).isFalse();
		assertThat(v6.contains(ClientIp.addressBytes("203.0.113.7"))).as("another family").isFalse();
		assertThat(ListEntry.parse("::/0").contains(ClientIp.addressBytes("2001:db9::7"))).isTrue();
		assertThat(ListEntry.parse("user-42").contains(ClientIp.addressBytes("203.0.113.7"))).isFalse();
	}

	@Test
	void theDenyListMatchesSubjectsAndClientNetworksAndWinsOverTheAllowList() {
		RateLimitLists lists = new RateLimitLists(List.of(ListEntry.parse("user-13"), ListEntry.parse("2001:db8::/32")),
				List.of(ListEntry.parse("2001:db8:1::/48"), ListEntry.parse("user-7")), 403, this.clock,
				() -> this.listener);
		assertThat(lists.denial("api", "user-13", null)).isNotNull();
		assertThat(lists.denial("api", "user-14", lists.address(request("203.0.113.7")))).isNull();
		ListDenial denial = lists.denial("api", "user-14", lists.address(request("2001:db8:1::9")));
		assertThat(denial).isNotNull();
		assertThat(denial.entry().text()).isEqualTo("2001:db8::/32");
		assertThat(denial.status()).isEqualTo(403);
		assertThat(lists.allows("api", "user-7", null)).isTrue();
		assertThat(lists.allows("api", "user-8", null)).isFalse();
		assertThat(this.listed).containsExactly("deny api user-13", "deny api user-14", "allow api user-7");
	}

	@Test
	void anAllowEntryThatNamesRulesSkipsThoseRulesOnly() {
		RateLimitLists lists = new RateLimitLists(List.of(), List.of(), 403, this.clock, () -> this.listener);
		long forever = 0;
		lists.replaceRuntime(Map.of(ListKind.ALLOW,
				List.of(ListEntry.parse("198.51.100.9").with(Set.of("api"), forever))));
		byte[] address = lists.address(request("198.51.100.9"));
		assertThat(lists.allows("api", "198.51.100.9", address)).isTrue();
		assertThat(lists.allows("login", "198.51.100.9", address)).isFalse();
		assertThat(lists.allows("api", "198.51.100.10", lists.address(request("198.51.100.10")))).isFalse();
	}

	@Test
	void anEntryWithATimeToLiveLapsesAtItsExpiryWithoutAnythingBeingReadAgain() {
		RateLimitLists lists = new RateLimitLists(List.of(), List.of(), 451, this.clock, () -> this.listener);
		long expiry = this.clock.millis() + 5_000;
		lists.replaceRuntime(Map.of(ListKind.DENY, List.of(ListEntry.parse("203.0.113.0/24").with(Set.of(), expiry))));
		byte[] address = lists.address(request("203.0.113.7"));
		assertThat(lists.denial("api", "x", address)).isNotNull();
		this.clock.advance(Duration.ofMillis(4_999));
		assertThat(lists.denial("api", "x", address).status()).isEqualTo(451);
		this.clock.advance(Duration.ofMillis(1));
		assertThat(lists.denial("api", "x", address)).as("lapsed at its expiry").isNull();
	}

	@Test
	void listsWithoutNetworksNeverParseTheClientAddress() {
		RateLimitLists lists = new RateLimitLists(List.of(ListEntry.parse("user-13")), List.of(), 403, this.clock,
				() -> this.listener);
		assertThat(lists.address(request("203.0.113.7"))).isNull();
		assertThat(RateLimitLists.none().isEmpty()).isTrue();
		assertThat(lists.isEmpty()).isFalse();
	}

	@Test
	void theInMemoryRepositoryBoundsEachListAndForgetsLapsedEntries() {
		AccessListRepository repository = AccessListRepository.inMemory(2, this.clock);
		assertThat(repository.add(ListKind.DENY, ListEntry.parse("a"), Duration.ofSeconds(5))).isTrue();
		assertThat(repository.add(ListKind.DENY, ListEntry.parse("b"), null)).isTrue();
		assertThat(repository.add(ListKind.DENY, ListEntry.parse("c"), null)).as("full").isFalse();
		assertThat(repository.add(ListKind.DENY, ListEntry.parse("b"), Duration.ofSeconds(1))).as("replaced").isTrue();
		assertThat(repository.add(ListKind.ALLOW, ListEntry.parse("c"), null)).as("each list has its bound").isTrue();
		this.clock.advance(Duration.ofSeconds(5));
		assertThat(repository.load().get(ListKind.DENY)).isEmpty();
		assertThat(repository.add(ListKind.DENY, ListEntry.parse("c"), null)).as("lapsed ones make room").isTrue();
		assertThat(repository.remove(ListKind.DENY, "c")).isTrue();
		assertThat(repository.remove(ListKind.DENY, "c")).isFalse();
	}

	private static RateLimitRequest request(String address) {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api");
		request.setRemoteAddr(address);
		return new ServletRateLimitRequest(request);
	}

}
