package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.store.RateLimitStoreException;
import dev.ratelimit.store.StoreState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class StoreStateLogTests {

	private final AtomicLong nanos = new AtomicLong(-7);

	private final StoreStateLog log = new StoreStateLog(this.nanos::get, Duration.ofSeconds(10).toNanos());

	@Test
	void anOutageIsLoggedWhenItBeginsWithItsCauseAndWhenItEndsWithItsLength(CapturedOutput output) {
		this.log.onStoreStateChange(StoreState.REDIS, StoreState.FALLBACK,
				new RateLimitStoreException("Redis did not answer within PT0.1S", new IllegalStateException()));
		assertThat(output).contains("Rate limit store unavailable (Redis did not answer within PT0.1S); rules follow"
				+ " their on-store-failure mode (local, allow or deny)");
		advance(Duration.ofMillis(8615));
		this.log.onStoreStateChange(StoreState.FALLBACK, StoreState.REDIS, null);
		assertThat(output).contains("Rate limit store recovered after 8615 ms; decisions come from it again");
		assertThat(lines(output, "unavailable")).isOne();
		assertThat(lines(output, "recovered")).isOne();
	}

	@Test
	void outagesBeginningWithinTenSecondsOfALoggedOneAreCountedInTheNextLoggedOne(CapturedOutput output) {
		outage(Duration.ofSeconds(1));
		advance(Duration.ofSeconds(2));
		outage(Duration.ofSeconds(1));
		advance(Duration.ofSeconds(2));
		outage(Duration.ofSeconds(1));
		assertThat(lines(output, "unavailable")).as("one outage logged in the first 10 s").isOne();
		assertThat(lines(output, "recovered")).as("only the logged outage's end").isOne();
		advance(Duration.ofSeconds(10).minus(Duration.ofSeconds(7)).minusNanos(1));
		outage(Duration.ofSeconds(1));
		assertThat(lines(output, "unavailable")).as("9.999... s after the logged one").isOne();
		advance(Duration.ofNanos(1).plus(Duration.ofSeconds(1)));
		this.log.onStoreStateChange(StoreState.REDIS, StoreState.FALLBACK, null);
		assertThat(lines(output, "unavailable")).isEqualTo(2);
		assertThat(output).contains("Rate limit store unavailable (its circuit breaker opened without a failed call,"
				+ " e.g. forced open)")
			.contains("3 more outages since the previous message began too soon after it to be logged");
	}

	@Test
	void eachMasterOfAClusterIsLoggedAndThrottledApartNamingIt(CapturedOutput output) {
		String first = "127.0.0.1:7001 slots 0-5460 (id a1)";
		String second = "127.0.0.1:7002 slots 5461-10921 (id b2)";
		this.log.nodeChanged(first, StoreState.REDIS, StoreState.FALLBACK, new IllegalStateException("refused"));
		advance(Duration.ofSeconds(1));
		this.log.nodeChanged(second, StoreState.REDIS, StoreState.FALLBACK, new IllegalStateException("refused"));
		advance(Duration.ofSeconds(1));
		this.log.nodeChanged(first, StoreState.FALLBACK, StoreState.REDIS, null);
		advance(Duration.ofSeconds(1));
		// the first master again, within 10 s of its logged outage: counted, not logged
		this.log.nodeChanged(first, StoreState.REDIS, StoreState.FALLBACK, null);
		this.log.nodeChanged(first, StoreState.FALLBACK, StoreState.REDIS, null);
		assertThat(output).contains("Rate limit store node " + first + " unavailable (refused); rules follow their"
				+ " on-store-failure mode (local, allow or deny) for requests with keys on it")
			.contains("Rate limit store node " + second + " unavailable (refused)")
			.contains("Rate limit store node " + first + " recovered after 2000 ms; decisions for its keys come from"
					+ " Redis again");
		assertThat(output.getOut().lines().filter((line) -> line.contains(first + " unavailable"))).hasSize(1);
		assertThat(output.getOut().lines().filter((line) -> line.contains(first + " recovered"))).hasSize(1);
		assertThat(output.getOut().lines().filter((line) -> line.contains(second + " recovered"))).isEmpty();
	}

	private void outage(Duration length) {
		this.log.onStoreStateChange(StoreState.REDIS, StoreState.FALLBACK, new IllegalStateException("down"));
		advance(length);
		this.log.onStoreStateChange(StoreState.FALLBACK, StoreState.REDIS, null);
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	private static long lines(CapturedOutput output, String word) {
		return output.getOut().lines().filter((line) -> line.contains("Rate limit store " + word)).count();
	}

}
