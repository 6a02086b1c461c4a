package dev.ratelimit.web;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleWaiting;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.test.MutableClock;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockAsyncContext;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A request that the filter delays waits in asynchronous mode, holding no thread, and proceeds once, in the
 * asynchronous dispatch at its slot; one that the container reports gone (the client hung up) or timed out before
 * then gives its slot back, so the next request to reserve moves up by one interval.
 */
class DelayedRequestTests {

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final LocalRateLimitStore store = new LocalRateLimitStore(100, this.clock);

	private final AtomicInteger calls = new AtomicInteger();

	@Test
	void aDelayedRequestWaitsWithoutAThreadAndProceedsOnceInTheDispatchAtItsSlot() throws Exception {
		RateLimitFilter filter = filter(Duration.ofSeconds(2));
		filter.doFilter(request(), new MockHttpServletResponse(), this.counting());
		MockHttpServletRequest waiting = request();
		MockHttpServletResponse response = new MockHttpServletResponse();
		filter.doFilter(waiting, response, this.counting());
		assertThat(waiting.isAsyncStarted()).as("waiting asynchronously").isTrue();
		assertThat(this.calls).as("only the first proceeded").hasValue(1);
		assertThat(filter.waiting("queue")).isOne();
		MockAsyncContext context = (MockAsyncContext) waiting.getAsyncContext();
		await().atMost(Duration.ofSeconds(30)).until(() -> context.getDispatchedPath() != null);
		assertThat(filter.waiting("queue")).as("its waiting place is free at its slot").isZero();
		waiting.setAsyncStarted(false);
		waiting.setDispatcherType(DispatcherType.ASYNC);
		filter.doFilter(waiting, response, this.counting());
		assertThat(this.calls).as("it proceeded in the dispatch").hasValue(2);
		assertThat(response.getStatus()).isEqualTo(200);
		filter.doFilter(waiting, response, this.counting());
		assertThat(this.calls).as("a later dispatch of its own is not limited again").hasValue(3);
		assertThat(nextDelay(Duration.ofSeconds(2))).as("its slot stays taken").isEqualTo(Duration.ofSeconds(4));
	}

	@Test
	void aWaitingRequestThatTheContainerReportsGoneGivesItsSlotBack() throws Exception {
		RateLimitFilter filter = filter(Duration.ofSeconds(5));
		filter.doFilter(request(), new MockHttpServletResponse(), this.counting());
		MockHttpServletRequest gone = request();
		filter.doFilter(gone, new MockHttpServletResponse(), this.counting());
		filter.doFilter(request(), new MockHttpServletResponse(), this.counting());
		assertThat(filter.waiting("queue")).isEqualTo(2);
		assertThat(nextDelay()).isEqualTo(Duration.ofSeconds(15));
		MockAsyncContext context = (MockAsyncContext) gone.getAsyncContext();
		for (AsyncListener listener : context.getListeners()) {
			listener.onError(new AsyncEvent(context, new IOException("Connection reset by peer")));
		}
		assertThat(filter.waiting("queue")).isOne();
		assertThat(nextDelay()).as("the next reservation moved up by one interval").isEqualTo(Duration.ofSeconds(10));
		assertThat(this.calls).hasValue(1);
	}

	@Test
	void aWaitingRequestThatTimesOutGivesItsSlotBackAndAnswers503() throws Exception {
		RateLimitFilter filter = filter(Duration.ofSeconds(5));
		filter.doFilter(request(), new MockHttpServletResponse(), this.counting());
		MockHttpServletRequest late = request();
		MockHttpServletResponse response = new MockHttpServletResponse();
		filter.doFilter(late, response, this.counting());
		MockAsyncContext context = (MockAsyncContext) late.getAsyncContext();
		for (AsyncListener listener : context.getListeners()) {
			listener.onTimeout(new AsyncEvent(context, late, response));
		}
		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(nextDelay()).isEqualTo(Duration.ofSeconds(5));
		assertThat(filter.waiting("queue")).isZero();
	}

	@Test
	void beyondMaxWaitingARequestIsRejectedAtOnce() throws Exception {
		RateLimitFilter filter = filter(Duration.ofSeconds(5));
		filter.doFilter(request(), new MockHttpServletResponse(), this.counting());
		filter.doFilter(request(), new MockHttpServletResponse(), this.counting());
		filter.doFilter(request(), new MockHttpServletResponse(), this.counting());
		MockHttpServletResponse rejected = new MockHttpServletResponse();
		MockHttpServletRequest fourth = request();
		filter.doFilter(fourth, rejected, this.counting());
		assertThat(fourth.isAsyncStarted()).isFalse();
		assertThat(rejected.getStatus()).isEqualTo(429);
		assertThat(filter.waiting("queue")).isEqualTo(2);
	}

	private Duration nextDelay() {
		return nextDelay(Duration.ofSeconds(5));
	}

	private Duration nextDelay(Duration interval) {
		RateLimitPolicy policy = policy(interval);
		return this.store.peek(List.of(new RateLimitCheck(policy, "subject", 1, false, Duration.ofHours(1))))
			.get(0)
			.delay();
	}

	private static MockHttpServletRequest request() {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/queue");
		request.setAsyncSupported(true);
		return request;
	}

	private FilterChain counting() {
		return (request, response) -> this.calls.incrementAndGet();
	}

	private static RateLimitPolicy policy(Duration interval) {
		return RateLimitPolicy.of("queue", Algorithm.GCRA, 1, interval).withBurst(1);
	}

	private RateLimitFilter filter(Duration interval) {
		RateLimitRule rule = RateLimitRule.builder("queue", policy(interval))
			.key((request) -> "subject")
			.waiting(new RuleWaiting(Duration.ofMinutes(1), 2))
			.build();
		return new RateLimitFilter(new RateLimitRules(List.of(rule)), new StoreRateLimiter(this.store),
				new StandardRateLimitHeadersWriter(HeaderStyle.BOTH, Clock.systemUTC()), new ProblemDetailRejectionHandler(),
				null);
	}

}
