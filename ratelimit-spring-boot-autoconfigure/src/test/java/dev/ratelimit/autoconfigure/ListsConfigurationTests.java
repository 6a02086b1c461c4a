package dev.ratelimit.autoconfigure;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.lists.ListKind;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.rule.RateLimitRules;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.lists.*} bind into the lists the rules consult; an invalid entry or setting fails start-up naming
 * the property.
 */
class ListsConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.api.limit=100", "ratelimit.rules.api.period=1m");

	@Test
	void configuredEntriesAreTheListsOfTheRules() {
		this.runner
			.withPropertyValues("ratelimit.lists.deny[0]=203.0.113.0/24", "ratelimit.lists.deny[1]=user-13",
					"ratelimit.lists.allow=2001:DB8::/32,198.51.100.9")
			.run((context) -> {
				RateLimitLists lists = context.getBean(RateLimitLists.class);
				assertThat(context.getBean(RateLimitRules.class).lists()).isSameAs(lists);
				assertThat(lists.configured(ListKind.DENY)).extracting("text").containsExactly("203.0.113.0/24",
						"user-13");
				assertThat(lists.configured(ListKind.ALLOW)).extracting("text").containsExactly("2001:db8::/32",
						"198.51.100.9");
			});
		this.runner.run((context) -> assertThat(context.getBean(RateLimitLists.class).isEmpty()).isTrue());
	}

	@Test
	void anInvalidEntryOrSettingFailsStartUpNamingTheProperty() {
		assertFails("ratelimit.lists.deny[1]", "'203.0.113.0/33' has an invalid prefix length",
				"ratelimit.lists.deny[0]=user-13", "ratelimit.lists.deny[1]=203.0.113.0/33");
		assertFails("ratelimit.lists.allow[0]", "'999.1.2.3' is not a valid IPv4 address",
				"ratelimit.lists.allow[0]=999.1.2.3");
		assertFails("ratelimit.lists.allow[0]", "must not be blank", "ratelimit.lists.allow[0]= ");
		assertFails("ratelimit.lists.deny", "more than ratelimit.lists.max-entries (1)",
				"ratelimit.lists.max-entries=1", "ratelimit.lists.deny=a,b");
		assertFails("ratelimit.lists.max-entries", "must be at least 1", "ratelimit.lists.max-entries=0");
		assertFails("ratelimit.lists.deny-status", "between 400 and 599 but was 200", "ratelimit.lists.deny-status=200");
		assertFails("ratelimit.lists.refresh-interval", "must be positive", "ratelimit.lists.refresh-interval=0s");
	}

	@Test
	void aRuleCannotBeNamedLists() {
		this.runner.withPropertyValues("ratelimit.rules.lists.limit=1", "ratelimit.rules.lists.period=1m")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("'lists' is reserved by the ratelimits endpoint"));
	}

	private void assertFails(String property, String problem, String... properties) {
		this.runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			while (!(failure instanceof InvalidRateLimitConfigurationException) && failure.getCause() != null) {
				failure = failure.getCause();
			}
			assertThat(failure).isInstanceOf(InvalidRateLimitConfigurationException.class);
			assertThat(((InvalidRateLimitConfigurationException) failure).getProperty()).isEqualTo(property);
			assertThat(failure).hasMessageContaining(problem);
		});
	}

}
