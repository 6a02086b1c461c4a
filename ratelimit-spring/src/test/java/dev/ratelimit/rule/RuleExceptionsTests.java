package dev.ratelimit.rule;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * A rule's per-subject exceptions: the exception's policy for its subject only (before the tier's), runtime exceptions
 * over configured ones, overrides carried into them, and the in-memory repository's bound.
 */
class RuleExceptionsTests {

	private static final RateLimitPolicy POLICY = RateLimitPolicy.of("api", Algorithm.GCRA, 10, Duration.ofMinutes(1));

	private final RateLimitRule rule = RateLimitRule.builder("api", POLICY)
		.key((request) -> request.clientIp())
		.tiers(Map.of("pro", POLICY.withLimit(100)), (request) -> "pro")
		.exceptions(Map.of("user-42", RateLimitRule.exceptionPolicy(POLICY, 1000)))
		.build();

	@Test
	void anExceptionReplacesTheTierAndRulePolicyForItsSubjectOnly() {
		assertThat(policyOf(this.rule, "user-42").limit()).isEqualTo(1000);
		assertThat(policyOf(this.rule, "user-42").name()).as("the same key in the store").isEqualTo("api");
		assertThat(policyOf(this.rule, "user-42").period()).isEqualTo(Duration.ofMinutes(1));
		assertThat(policyOf(this.rule, "user-7").limit()).as("others keep their tier's").isEqualTo(100);
	}

	@Test
	void runtimeExceptionsAddToConfiguredOnesAndFollowOverrides() {
		RateLimitRules rules = new RateLimitRules(List.of(this.rule));
		rules.replaceExceptions(Map.of("api", Map.of("user-42", 5L, "user-7", 7L, "bad", 0L), "nope", Map.of("x", 1L)));
		RateLimitRule effective = rules.get("api").orElseThrow();
		assertThat(effective.exceptions().get("user-42").limit()).as("runtime over configured").isEqualTo(5);
		assertThat(effective.exceptions().get("user-7").limit()).isEqualTo(7);
		assertThat(effective.exceptions()).as("an invalid limit is ignored").doesNotContainKey("bad");
		rules.replaceOverrides(Map.of("api", new RuleOverride(20L, Duration.ofSeconds(30), null, null)));
		assertThat(rules.get("api").orElseThrow().exceptions().get("user-7").period()).isEqualTo(Duration.ofSeconds(30));
		assertThat(rules.get("api").orElseThrow().exceptions().get("user-7").limit()).isEqualTo(7);
		rules.replaceExceptions(Map.of());
		assertThat(rules.get("api").orElseThrow().exceptions()).containsOnlyKeys("user-42");
		assertThat(rules.get("api").orElseThrow().exceptions().get("user-42").limit()).isEqualTo(1000);
		assertThat(rules.runtimeExceptions("api")).isEmpty();
	}

	@Test
	void theInMemoryRepositoryRefusesANewSubjectBeyondItsBound() {
		RuleOverrideRepository repository = RuleOverrideRepository.inMemory(2);
		assertThat(repository.saveException("api", "a", 1)).isTrue();
		assertThat(repository.saveException("api", "b", 2)).isTrue();
		assertThat(repository.saveException("api", "c", 3)).isFalse();
		assertThat(repository.saveException("api", "b", 4)).as("changing one is not adding one").isTrue();
		assertThat(repository.saveException("other", "c", 3)).as("the bound is per rule").isTrue();
		repository.removeException("api", "a");
		assertThat(repository.saveException("api", "c", 3)).isTrue();
		assertThat(repository.loadExceptions(List.of("api"))).containsEntry("api", Map.of("b", 4L, "c", 3L));
	}

	private static RateLimitPolicy policyOf(RateLimitRule rule, String subject) {
		RateLimitRequest request = mock(RateLimitRequest.class);
		when(request.clientIp()).thenReturn(subject);
		return rule.check(request, ResolutionFailures.logOnly()).policy();
	}

}
