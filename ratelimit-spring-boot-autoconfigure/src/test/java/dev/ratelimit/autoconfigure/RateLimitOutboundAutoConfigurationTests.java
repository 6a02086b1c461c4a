package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.client.RateLimitClientInterceptor;
import dev.ratelimit.client.RateLimitExchangeFilter;
import dev.ratelimit.client.RateLimitedClients;
import dev.ratelimit.client.RateLimitedWebClients;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.service.registry.HttpServiceGroup;
import org.springframework.web.service.registry.HttpServiceGroupConfigurer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Outbound limiting's beans, its property-driven customizers, and the start-up checks of the rules it names.
 */
class RateLimitOutboundAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitOutboundAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.payments.match.enabled=false", "ratelimit.rules.payments.limit=10",
				"ratelimit.rules.payments.period=1s", "ratelimit.rules.payments.max-wait=5s");

	@Test
	void theFactoriesAreThereWithoutAnyProperty() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimitedClients.class).hasSingleBean(RateLimitedWebClients.class);
			assertThat(context).doesNotHaveBean(RestClientCustomizer.class)
				.doesNotHaveBean(RestTemplateCustomizer.class)
				.doesNotHaveBean(WebClientCustomizer.class);
			assertThat(context.getBean(RateLimitedClients.class).interceptor("payments").getRule()).isEqualTo("payments");
		});
	}

	@Test
	void withoutWebFluxThereIsNoWebClientFactory() {
		this.runner.withClassLoader(new FilteredClassLoader(WebClient.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimitedClients.class)
				.doesNotHaveBean(RateLimitedWebClients.class));
	}

	@Test
	void withoutSpringBootsRestClientModuleThereAreNoCustomizers() {
		this.runner.withPropertyValues("ratelimit.outbound.rule=payments")
			.withClassLoader(new FilteredClassLoader(RestClientCustomizer.class, WebClientCustomizer.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimitedClients.class)
				.doesNotHaveBean(RestClientCustomizer.class)
				.doesNotHaveBean(WebClientCustomizer.class));
	}

	@Test
	void theOutboundRulePropertyAppliesTheRuleToEveryBuilder() {
		this.runner.withPropertyValues("ratelimit.outbound.rule=payments").run((context) -> {
			RestClient.Builder restClient = RestClient.builder();
			context.getBean(RestClientCustomizer.class).customize(restClient);
			assertThat(interceptors(restClient)).singleElement()
				.isInstanceOfSatisfying(RateLimitClientInterceptor.class,
						(interceptor) -> assertThat(interceptor.getRule()).isEqualTo("payments"));
			RestTemplate restTemplate = new RestTemplate();
			context.getBean(RestTemplateCustomizer.class).customize(restTemplate);
			assertThat(restTemplate.getInterceptors()).singleElement().isInstanceOf(RateLimitClientInterceptor.class);
			WebClient.Builder webClient = WebClient.builder();
			context.getBean(WebClientCustomizer.class).customize(webClient);
			List<ExchangeFilterFunction> filters = new ArrayList<>();
			webClient.filters(filters::addAll);
			assertThat(filters).singleElement().isInstanceOf(RateLimitExchangeFilter.class);
		});
	}

	@Test
	void aGroupPropertyConfiguresThatHttpServiceGroupOnly() {
		this.runner.withPropertyValues("ratelimit.outbound.groups.payments-service=payments").run((context) -> {
			Map<String, RestClient.Builder> builders = Map.of("payments-service", RestClient.builder(), "other",
					RestClient.builder());
			context.getBean(RestClientHttpServiceGroupConfigurer.class).configureGroups(new FakeGroups(builders));
			assertThat(interceptors(builders.get("payments-service"))).singleElement()
				.isInstanceOf(RateLimitClientInterceptor.class);
			assertThat(interceptors(builders.get("other"))).isEmpty();
		});
	}

	private static List<ClientHttpRequestInterceptor> interceptors(RestClient.Builder builder) {
		List<ClientHttpRequestInterceptor> interceptors = new ArrayList<>();
		builder.requestInterceptors(interceptors::addAll);
		return interceptors;
	}

	@Test
	void anUnknownOutboundRuleFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.outbound.rule=paymnets")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidRateLimitConfigurationException.class,
						(ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.outbound.rule"))
				.hasMessageContaining("there is no rule 'paymnets'"));
	}

	@Test
	void anUnknownGroupRuleFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.outbound.groups.payments-service=nope")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidRateLimitConfigurationException.class, (ex) -> assertThat(
						ex.getProperty()).isEqualTo("ratelimit.outbound.groups.payments-service")));
	}

	@Test
	void aConcurrencyRuleCannotLimitOutboundCalls() {
		this.runner
			.withPropertyValues("ratelimit.rules.calls.match.enabled=false", "ratelimit.rules.calls.algorithm=concurrency",
					"ratelimit.rules.calls.limit=5", "ratelimit.outbound.rule=calls")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.outbound.rule")
				.hasMessageContaining("concurrency rule"));
	}

	@Test
	void aMaxPauseThatIsNotPositiveFailsStartUp() {
		this.runner.withPropertyValues("ratelimit.outbound.max-pause=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidRateLimitConfigurationException.class,
						(ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.outbound.max-pause")));
	}

	@Test
	void aMisspelledOutboundPropertyFailsStartUp() {
		this.runner.withPropertyValues("ratelimit.outbound.pause-on-retry-afer=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.outbound.pause-on-retry-afer")
				.hasMessageContaining("pause-on-retry-after"));
	}

	/** The HTTP service groups of a registry, each with its client builder. */
	private record FakeGroups(Map<String, RestClient.Builder> builders, Set<String> selected)
			implements HttpServiceGroupConfigurer.Groups<RestClient.Builder> {

		FakeGroups(Map<String, RestClient.Builder> builders) {
			this(builders, builders.keySet());
		}

		@Override
		public HttpServiceGroupConfigurer.Groups<RestClient.Builder> filterByName(String... names) {
			return new FakeGroups(this.builders, Set.of(names));
		}

		@Override
		public HttpServiceGroupConfigurer.Groups<RestClient.Builder> filter(Predicate<HttpServiceGroup> predicate) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void forEachClient(HttpServiceGroupConfigurer.ClientCallback<RestClient.Builder> callback) {
			this.selected.forEach((name) -> callback.withClient(group(name), this.builders.get(name)));
		}

		@Override
		public void forEachClient(HttpServiceGroupConfigurer.InitializingClientCallback<RestClient.Builder> callback) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void forEachProxyFactory(HttpServiceGroupConfigurer.ProxyFactoryCallback callback) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void forEachGroup(HttpServiceGroupConfigurer.GroupCallback<RestClient.Builder> callback) {
			throw new UnsupportedOperationException();
		}

		private static HttpServiceGroup group(String name) {
			return new HttpServiceGroup() {

				@Override
				public String name() {
					return name;
				}

				@Override
				public Set<Class<?>> httpServiceTypes() {
					return Set.of();
				}

				@Override
				public ClientType clientType() {
					return ClientType.REST_CLIENT;
				}

			};
		}

	}

}
