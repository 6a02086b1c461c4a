package dev.ratelimit.web;

import dev.ratelimit.rule.SettleResponse;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** What a handler reports with {@link RateLimitContext}: the last call wins, for every rule or for one. */
class RateLimitContextTests {

	private final RateLimitContext context = new RateLimitContext(() -> SettleResponse.NONE);

	@Test
	void nothingReportedIsNull() {
		assertThat(this.context.reported("tokens")).isNull();
	}

	@Test
	void theLastCallWinsWhicheverFormItTakes() {
		this.context.settle(10);
		assertThat(this.context.reported("tokens")).isEqualTo(10);
		this.context.settle("tokens", 20);
		assertThat(this.context.reported("tokens")).isEqualTo(20);
		assertThat(this.context.reported("other")).as("another rule keeps the report for all").isEqualTo(10);
		this.context.settle(30);
		assertThat(this.context.reported("tokens")).isEqualTo(30);
		this.context.settle("tokens", 0);
		assertThat(this.context.reported("tokens")).isZero();
	}

	@Test
	void unitsOutOfRangeAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.context.settle(-1));
		assertThatIllegalArgumentException().isThrownBy(() -> this.context.settle("tokens", Long.MAX_VALUE));
	}

}
