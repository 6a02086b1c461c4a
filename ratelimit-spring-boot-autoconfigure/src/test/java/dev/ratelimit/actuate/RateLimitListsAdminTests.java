package dev.ratelimit.actuate;

import java.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.lists.AccessListRepository;
import dev.ratelimit.lists.ListKind;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Every change of a list is logged with who made it: the authenticated principal when there is one. */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitListsAdminTests {

	private final RateLimitLists lists = new RateLimitLists(List.of(), List.of(), 403, Clock.systemUTC(),
			() -> RateLimitListener.NONE);

	private final RateLimitRules rules = new RateLimitRules(
			List.of(RateLimitRule.builder("api", RateLimitPolicy.of("api", Algorithm.GCRA, 10, Duration.ofMinutes(1))).build())).withLists(this.lists);

	private final RateLimitListsAdmin admin = new RateLimitListsAdmin(this.rules, this.lists,
			AccessListRepository.inMemory(10, Clock.systemUTC()), 10);

	@Test
	void eachChangeIsLoggedWithTheAuthenticatedPrincipal(CapturedOutput output) {
		String who = RateLimitsEndpointWebExtension.who(context(() -> "ops-alice"));
		this.admin.add("deny", "203.0.113.0/24", "5s", null, who);
		assertThat(this.lists.runtime(ListKind.DENY)).hasSize(1);
		this.admin.add("allow", "198.51.100.9", null, List.of("api"), who);
		assertThat(this.admin.remove("deny", "203.0.113.0/24", RateLimitsEndpointWebExtension.who(context(null))))
			.isNotNull();
		assertThat(output).contains("Rate limit deny list: '203.0.113.0/24' added for PT5S by 'ops-alice'")
			.contains("Rate limit allow list: '198.51.100.9' added for rules [api] by 'ops-alice'")
			.contains("Rate limit deny list: '203.0.113.0/24' removed by an unauthenticated caller");
	}

	private static SecurityContext context(@Nullable Principal principal) {
		return new SecurityContext() {

			@Override
			public @Nullable Principal getPrincipal() {
				return principal;
			}

			@Override
			public boolean isUserInRole(String role) {
				return false;
			}

		};
	}

}
