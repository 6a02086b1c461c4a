package dev.ratelimit.client;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleWaiting;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.MutableClock;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@code WebClient} filter with observations on: each call's decision is a {@code ratelimit.decision} observation
 * (caller {@code outbound}) under the observation of the Reactor context (the client's own, in a real
 * {@code WebClient}), and a wait for a reserved slot a {@code ratelimit.slot.wait} beside it; a subscriber that cancels
 * during the wait ends that observation with an error and gives the slot back. Rule {@code provider}: GCRA, 1 per
 * 400 ms, max-wait 500 ms, on a store whose clock stands still (the wait itself is real time).
 */
class RateLimitExchangeFilterObservationTests {

	private static final RateLimitPolicy PROVIDER = RateLimitPolicy.of("provider", Algorithm.GCRA, 1,
			Duration.ofMillis(400));

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	{
		this.registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				RateLimitExchangeFilterObservationTests.this.stopped.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
	}

	private final RateLimiter limiter = new StoreRateLimiter(
			new LocalRateLimitStore(100, MutableClock.atRealisticEpoch()));

	private final RateLimitedClients clients = new RateLimitedClients(this.limiter, new RateLimitRules(List
		.of(RateLimitRule.builder("provider", PROVIDER).waiting(new RuleWaiting(Duration.ofMillis(500), 10)).build())));

	private final RateLimitExchangeFilter filter;

	private final ExchangeFunction provider = (request) -> Mono.just(ClientResponse.create(HttpStatus.OK).build());

	private final ClientRequest request = ClientRequest
		.create(HttpMethod.GET, URI.create("https://api.payments.example/pay"))
		.build();

	RateLimitExchangeFilterObservationTests() {
		this.clients.setObservations(new RateLimitObservations(this.registry, null, "local", () -> StoreState.LOCAL));
		this.filter = new RateLimitedWebClients(this.clients).filter("provider");
	}

	@Test
	void eachCallsDecisionIsObservedUnderTheContextsObservationAndItsWaitBesideIt() {
		Observation client = Observation.start("http.client.requests", this.registry);
		assertThat(call(client).block(Duration.ofSeconds(5)).statusCode().value()).isEqualTo(200);
		assertThat(call(client).block(Duration.ofSeconds(5)).statusCode().value()).isEqualTo(200);
		assertThatExceptionOfType(OutboundRateLimitExceededException.class)
			.isThrownBy(() -> call(client).block(Duration.ofSeconds(5)));
		client.stop();
		List<Observation.Context> decisions = named("ratelimit.decision");
		assertThat(decisions).extracting((context) -> value(context, "ratelimit.outcome"))
			.containsExactly("allowed", "waited", "denied");
		assertThat(decisions).allSatisfy((context) -> {
			assertThat(value(context, "ratelimit.caller")).isEqualTo("outbound");
			assertThat(value(context, "ratelimit.rules")).isEqualTo("provider");
			assertThat(context.getParentObservation()).isSameAs(client);
		});
		assertThat(value(decisions.get(2), "ratelimit.denied.by")).isEqualTo("provider");
		List<Observation.Context> waits = named("ratelimit.slot.wait");
		assertThat(waits).singleElement().satisfies((wait) -> {
			assertThat(wait.getParentObservation()).isSameAs(client);
			assertThat(wait.getError()).isNull();
		});
	}

	@Test
	void aCallCancelledWhileItWaitsEndsItsWaitWithAnErrorAndGivesItsSlotBack() {
		Observation client = Observation.start("http.client.requests", this.registry);
		call(client).block(Duration.ofSeconds(5));
		Disposable waiting = call(client).subscribe();
		await().atMost(Duration.ofSeconds(5)).until(() -> named("ratelimit.decision").size() == 2);
		waiting.dispose();
		await().atMost(Duration.ofSeconds(5)).until(() -> named("ratelimit.slot.wait").size() == 1);
		assertThat(named("ratelimit.slot.wait").get(0).getError()).isNotNull();
		// the slot given back: the next call waits for the same slot again (400 ms), not for the one after it (800 ms)
		Verdict next = this.limiter.evaluate(this.clients.admit("provider", "api.payments.example").checks());
		assertThat(next.allowed()).isTrue();
		assertThat(next.delay()).isEqualTo(Duration.ofMillis(400));
		client.stop();
	}

	private Mono<ClientResponse> call(Observation client) {
		return this.filter.filter(this.request, this.provider)
			.contextWrite((context) -> context.put(ObservationThreadLocalAccessor.KEY, client));
	}

	private List<Observation.Context> named(String name) {
		return this.stopped.stream().filter((context) -> name.equals(context.getName())).toList();
	}

	private static String value(Observation.Context context, String key) {
		return context.getLowCardinalityKeyValue(key).getValue();
	}

}
