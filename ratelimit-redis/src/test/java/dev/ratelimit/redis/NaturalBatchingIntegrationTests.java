package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The batching lane of the Redis store, watched through its count of script calls, with a proxy in front of Redis
 * that holds back the replies (so that a call stays in flight while the test looks): a lone request goes out at once,
 * on the caller's thread, without waiting for company or for any timer; requests that arrive while the one lane is
 * busy wait and go out together, in arrival order, when the call returns; a request given up while it waited is never
 * sent, and one given up after its batch was sent is given back when the reply arrives.
 */
@RedisStandaloneTest
class NaturalBatchingIntegrationTests {

	private static final RateLimitPolicy POLICY = RateLimitPolicy.of("nb", Algorithm.FIXED_WINDOW, 10,
			Duration.ofHours(1));

	private TcpProxy proxy;

	private LettuceConnectionFactory factory;

	private RedisRateLimitStore store;

	private final String subject = UUID.randomUUID().toString();

	@BeforeEach
	void start(RedisEndpoint redis) throws Exception {
		this.proxy = new TcpProxy(redis.host(), redis.port());
		this.factory = LettuceFactories.standalone(new RedisEndpoint(redis.host(), this.proxy.port(),
				"redis://" + redis.host() + ":" + this.proxy.port(), true));
		this.store = new RedisRateLimitStore(SpringDataRedisConnection.of(this.factory), "nb", Duration.ofSeconds(30), null, LeaseIds.random(),
				new RedisBatching(true, 1, 64, 256));
		this.store.loadScripts();
	}

	@AfterEach
	void stop() throws Exception {
		this.store.close();
		this.factory.destroy();
		this.proxy.close();
	}

	@Test
	void aLoneRequestGoesOutAtOnceAndThoseArrivingMeanwhileShareTheNextCallInArrivalOrder() {
		this.proxy.holdReplies();
		CompletableFuture<List<Decision>> lone = this.store.evaluateAsync(request());
		// sent before evaluateAsync returned: on the caller's thread, not after a linger
		assertThat(this.store.batchStatistics()).containsExactly(1, 1);
		List<CompletableFuture<List<Decision>>> waiting = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			waiting.add(this.store.evaluateAsync(request()));
		}
		assertThat(this.store.batchStatistics()).as("the lane is busy: they wait").containsExactly(1, 1);
		this.proxy.releaseReplies();
		assertThat(lone.join().get(0).remaining()).isEqualTo(9);
		for (int i = 0; i < 4; i++) {
			assertThat(waiting.get(i).join().get(0).remaining()).as("in arrival order").isEqualTo(8 - i);
		}
		assertThat(this.store.batchStatistics()).as("one call carried the four").containsExactly(2, 5);
		// idle again: the next lone request goes out at once, alone
		this.proxy.holdReplies();
		CompletableFuture<List<Decision>> later = this.store.evaluateAsync(request());
		assertThat(this.store.batchStatistics()).containsExactly(3, 6);
		this.proxy.releaseReplies();
		assertThat(later.join().get(0).remaining()).isEqualTo(4);
	}

	@Test
	void aRequestGivenUpWhileItWaitsIsNeverSent() {
		this.proxy.holdReplies();
		CompletableFuture<List<Decision>> lone = this.store.evaluateAsync(request());
		CompletableFuture<List<Decision>> givenUp = this.store.evaluateAsync(request());
		CompletableFuture<List<Decision>> kept = this.store.evaluateAsync(request());
		givenUp.cancel(true);
		this.proxy.releaseReplies();
		assertThat(lone.join().get(0).remaining()).isEqualTo(9);
		assertThat(kept.join().get(0).remaining()).as("the given-up request consumed nothing").isEqualTo(8);
		assertThat(this.store.batchStatistics()).containsExactly(2, 2);
	}

	@Test
	void aRequestGivenUpAfterItsBatchWasSentIsGivenBackWhenTheReplyArrives() {
		this.proxy.holdReplies();
		CompletableFuture<List<Decision>> lone = this.store.evaluateAsync(request());
		CompletableFuture<List<Decision>> givenUp = this.store.evaluateAsync(request());
		CompletableFuture<List<Decision>> kept = this.store.evaluateAsync(request());
		// lets the lone reply through and holds the batch's
		await().atMost(Duration.ofSeconds(10)).until(this.proxy::holdsAReply);
		this.proxy.holdReplies();
		assertThat(lone.join().get(0).remaining()).isEqualTo(9);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.store.batchStatistics()[0] == 2);
		assertThat(this.store.batchStatistics()).as("one call carried both").containsExactly(2, 3);
		givenUp.cancel(true);
		this.proxy.releaseReplies();
		assertThat(kept.join().get(0).remaining()).as("decided in the batch after the other").isEqualTo(7);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.store.peek(List.of(RateLimitCheck.of(POLICY, this.subject, 0)))
				.get(0)
				.remaining()).as("the given-up request's unit given back").isEqualTo(8));
	}

	private List<RateLimitCheck> request() {
		return List.of(RateLimitCheck.of(POLICY, this.subject));
	}

}
