package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.ClientIp;
import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.aop.RateLimitedAspect;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleMatcher;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.web.ProblemDetailRejectionHandler;
import dev.ratelimit.web.RateLimitFilter;
import dev.ratelimit.web.RateLimitHeadersWriter;
import dev.ratelimit.web.RateLimitRejectionHandler;
import dev.ratelimit.web.ServletRateLimitRequest;
import dev.ratelimit.web.ServletRateLimitRequests;
import dev.ratelimit.web.StandardRateLimitHeadersWriter;
import jakarta.servlet.Filter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(
			RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
			RateLimitServletAutoConfiguration.class, RateLimitAopAutoConfiguration.class, AopAutoConfiguration.class);

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m");

	@Test
	void defaultsGiveALocalStoreFilterHeadersRejectionAndAspect() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimitRules.class);
			assertThat(context.getBean(RateLimitStore.class)).isInstanceOf(LocalRateLimitStore.class);
			assertThat(context.getBean(RateLimiter.class)).isInstanceOf(StoreRateLimiter.class);
			assertThat(context.getBean(RateLimitHeadersWriter.class)).isInstanceOf(StandardRateLimitHeadersWriter.class);
			assertThat(context.getBean(RateLimitRejectionHandler.class)).isInstanceOf(ProblemDetailRejectionHandler.class);
			assertThat(context).hasSingleBean(RateLimitedAspect.class);
			FilterRegistrationBean<?> registration = context.getBean("rateLimitFilterRegistration",
					FilterRegistrationBean.class);
			assertThat(registration.getFilter()).isInstanceOf(RateLimitFilter.class);
			assertThat(registration.getOrder()).isEqualTo(-90);
			RateLimitRules rules = context.getBean(RateLimitRules.class);
			assertThat(rules.get("api")).hasValueSatisfying((rule) -> {
				assertThat(rule.policy().limit()).isEqualTo(10);
				assertThat(rule.policy().algorithm().configName()).isEqualTo("gcra");
			});
		});
	}

	@Test
	void disabledRegistersNothing() {
		this.runner.withPropertyValues("ratelimit.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimiter.class);
			assertThat(context).doesNotHaveBean(RateLimitStore.class);
			assertThat(context).doesNotHaveBean("rateLimitFilterRegistration");
			assertThat(context).doesNotHaveBean(RateLimitedAspect.class);
		});
	}

	@Test
	void localStoreWorksWithoutRedisOnTheClassPath() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "io.lettuce"))
			.withPropertyValues("ratelimit.store=local")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RateLimitStore.class)).isInstanceOf(LocalRateLimitStore.class);
			});
	}

	@Test
	void redisConnectionFactoryGivesTheRedisStore() {
		this.runner.withUserConfiguration(RedisFactoryConfiguration.class).run((context) -> {
			assertThat(context.getBean(RateLimitStore.class)).isInstanceOf(RedisRateLimitStore.class);
		});
	}

	@Test
	void localStoreIsUsedWhenAskedForEvenWithRedis() {
		this.runner.withUserConfiguration(RedisFactoryConfiguration.class)
			.withPropertyValues("ratelimit.store=local")
			.run((context) -> assertThat(context.getBean(RateLimitStore.class)).isInstanceOf(LocalRateLimitStore.class));
	}

	@Test
	void redisStoreWithoutRedisFailsNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.store=redis")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("'ratelimit.store'")
				.contains("no Lettuce RedisConnectionFactory"));
	}

	@Test
	void userBeansReplaceHeadersWriterRejectionHandlerAndKeyResolver() {
		this.runner.withUserConfiguration(UserBeans.class)
			.withPropertyValues("ratelimit.rules.api.key=@tenantKey")
			.run((context) -> {
				assertThat(context.getBean(RateLimitHeadersWriter.class)).isSameAs(UserBeans.HEADERS);
				assertThat(context.getBean(RateLimitRejectionHandler.class)).isSameAs(UserBeans.REJECTION);
				assertThat(context.getBean(RateLimitRules.class).get("api").orElseThrow().key())
					.isSameAs(context.getBean("tenantKey"));
			});
	}

	@Test
	void aTemplatePartOfACompositeKeyGivesEveryAddressAndHeaderValueItsOwnQuota() {
		this.runner.withPropertyValues("ratelimit.rules.api.limit=1", "ratelimit.rules.api.key=ip+#{request.getHeader('A')}")
			.run((context) -> {
				Filter filter = context.getBean("rateLimitFilterRegistration", FilterRegistrationBean.class).getFilter();
				assertThat(send(filter, "10.0.0.1", "x")).isEqualTo("10.0.0.1|x allowed");
				assertThat(send(filter, "10.0.0.1", "x")).isEqualTo("10.0.0.1|x denied");
				assertThat(send(filter, "10.0.0.1", "y")).isEqualTo("10.0.0.1|y allowed");
				assertThat(send(filter, "10.0.0.2", "x")).isEqualTo("10.0.0.2|x allowed");
			});
	}

	private static String send(Filter filter, String address, String header) throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/items");
		request.setRemoteAddr(address);
		request.addHeader("A", header);
		filter.doFilter(request, new MockHttpServletResponse(), new MockFilterChain());
		Verdict verdict = (Verdict) request.getAttribute(RateLimitFilter.VERDICT_ATTRIBUTE);
		return verdict.checks().get(0).subject() + (verdict.allowed() ? " allowed" : " denied");
	}

	@Test
	void aKeyThatCannotBeResolvedIsReportedToTheListenerBeans() {
		List<String> failures = new CopyOnWriteArrayList<>();
		RateLimitListener listener = new RateLimitListener() {

			@Override
			public void onResolutionFailure(String rule, ResolutionPart part, RuntimeException failure) {
				failures.add(rule + " " + part.propertyName());
			}

		};
		this.runner.withBean(RateLimitListener.class, () -> listener)
			.withPropertyValues("ratelimit.rules.api.key=#{T(Integer).parseInt(request.getHeader('A'))}")
			.run((context) -> {
				MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/items");
				request.addHeader("A", "not a number");
				assertThat(new RuleMatcher(context.getBean(RateLimitRules.class))
					.checksFor(new ServletRateLimitRequest(request))).singleElement()
					.satisfies((check) -> assertThat(check.subject()).isEqualTo(request.getRemoteAddr()));
				assertThat(failures).containsExactly("api key");
			});
	}

	@Test
	void nonWebApplicationGetsTheLimiterAndAspectButNoFilter() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS).run((context) -> {
			assertThat(context).hasSingleBean(RateLimiter.class);
			assertThat(context).hasSingleBean(RateLimitedAspect.class);
			assertThat(context).doesNotHaveBean("rateLimitFilterRegistration");
		});
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.rules.bad.algorithm           | leaky-window                  | ratelimit.rules.bad.algorithm       | is not an algorithm
			ratelimit.rules.bad.key                 | client                        | ratelimit.rules.bad.key             | unknown key type
			ratelimit.rules.bad.key                 | ip+nobody                     | ratelimit.rules.bad.key             | unknown key type 'nobody'
			ratelimit.rules.bad.limit               | 0                             | ratelimit.rules.bad.limit           | at least 1
			ratelimit.rules.bad.limit               | -5                            | ratelimit.rules.bad.limit           | at least 1
			ratelimit.rules.bad.period              | 0s                            | ratelimit.rules.bad.period          | must be positive
			ratelimit.rules.bad.period              | -1m                           | ratelimit.rules.bad.period          | must be positive
			ratelimit.rules.bad.match.paths[0]      | /api/**/items                 | ratelimit.rules.bad.match.paths[0]  | not a valid path pattern
			ratelimit.rules.bad.match.methods[0]    | FETCH                         | ratelimit.rules.bad.match.methods[0]| not an HTTP method
			ratelimit.rules.bad.spread-windows      | true                          | ratelimit.rules.bad.spread-windows  | applies to fixed-window only
			ratelimit.rules.bad.period              | 400d                          | ratelimit.rules.bad.period          | between 1ms and 366d
			ratelimit.rules.bad                     | x                             | ratelimit.rules.bad                 | takes nested properties
			ratelimit.rules.bad.key                 | #{request.getHeader('X'      | ratelimit.rules.bad.key             | not a valid SpEL template
			ratelimit.rules.bad.key                 | ip+#{request.getHeader('X')  | ratelimit.rules.bad.key             | is never closed by '}'
			ratelimit.rules.bad.cost                | #{request.getParameter(      | ratelimit.rules.bad.cost            | not a valid SpEL template
			ratelimit.rules.bad.key                 | #{request.session.id}         | ratelimit.rules.bad.key             | request has no property 'session'
			ratelimit.rules.bad.cost                | lots                          | ratelimit.rules.bad.cost            | neither a positive integer
			ratelimit.rules.bad.cost                | 0                             | ratelimit.rules.bad.cost            | neither a positive integer
			ratelimit.rules.bad.key                 | @noSuchResolver               | ratelimit.rules.bad.key             | no KeyResolver bean named 'noSuchResolver'
			ratelimit.rules.bad.tier-key            | @noSuchResolver               | ratelimit.rules.bad.tier-key        | no KeyResolver bean named 'noSuchResolver'
			ratelimit.rules.bad.tiers.free          | 100                           | ratelimit.rules.bad.tier-key        | tiers are set but not how to find a tier
			ratelimit.rules.bad.tiers.free          | 0                             | ratelimit.rules.bad.tiers.free      | at least 1
			ratelimit.rules.bad.burst               | 0                             | ratelimit.rules.bad.burst           | at least 1
			ratelimit.key-prefix                    | 'a prefix with spaces'        | ratelimit.key-prefix                | must be 1 to 24 characters
			""")
	void invalidRulesFailStartUpNamingThePropertyAndTheFix(String property, String value, String named, String problem) {
		this.runner.withPropertyValues("ratelimit.rules.bad.limit=5", "ratelimit.rules.bad.period=1m", property + "=" + value)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'" + named + "'").contains(problem);
				assertThat(analysis.getAction()).startsWith("Fix '" + named + "'.").hasSizeGreaterThan(("Fix '" + named + "'. ").length() + 10);
			});
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.rules.bad.on-store-faliure | deny | ratelimit.rules.bad.on-store-failure
			ratelimit.rules.bad.onstorefaliure   | deny | ratelimit.rules.bad.on-store-failure
			ratelimit.rules.bad.match.path[0]    | /a   | ratelimit.rules.bad.match.paths
			ratelimit.rules.bad.limt             | 5    | ratelimit.rules.bad.limit
			ratelimit.rules.bad.tier.free        | 5    | ratelimit.rules.bad.tiers
			ratelimit.circuit-braker.minimum-number-of-calls | 5 | ratelimit.circuit-breaker
			ratelimit.redis.timeuot              | 1s   | ratelimit.redis.timeout
			ratelimit.header                     | ietf | ratelimit.headers
			ratelimit.rules.bad.count-when.stauts[0] | 401 | ratelimit.rules.bad.count-when.status
			ratelimit.rules.bad.count-wen.status[0]  | 401 | ratelimit.rules.bad.count-when
			""")
	void unknownPropertiesFailStartUpNamingTheClosestValidName(String property, String value, String closest) {
		this.runner.withPropertyValues("ratelimit.rules.bad.limit=5", "ratelimit.rules.bad.period=1m", property + "=" + value)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'" + property + "'").contains("no such rate limit property");
				assertThat(analysis.getAction()).contains("Did you mean '" + closest);
			});
	}

	@Test
	void aiPropertiesWithoutTheSpringAiModuleFailStartUpNamingTheModule() {
		this.runner.withPropertyValues("ratelimit.rules.bad.limit=5", "ratelimit.rules.bad.period=1m",
				"ratelimit.ai.rule=bad")
			.run((context) -> {
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'ratelimit.ai.rule'")
					.contains("optional module ratelimit-spring-ai");
				assertThat(analysis.getAction()).contains("dev.ratelimit:ratelimit-spring-ai");
			});
	}

	@Test
	void unknownPropertiesWithNothingCloseListTheValidNames() {
		this.runner.withPropertyValues("ratelimit.rules.api.colour=blue")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getAction()).contains("Use one of [")
				.contains("on-store-failure"));
		this.runner.withPropertyValues("ratelimit.rules.api.tiers.free.extra=1")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getAction()).contains("takes a value"));
	}

	@Test
	void everyDocumentedFormOfAValidConfigurationStarts() {
		this.runner.withPropertyValues("ratelimit.rules.api.match.paths[0]=/api/**",
				"ratelimit.rules.api.match.methods=GET,POST", "ratelimit.rules.api.onStoreFailure=deny",
				"ratelimit.rules.api.tiers.free=5", "ratelimit.rules.api.tier-key=header:X",
				"ratelimit.rules[with.dots].limit=5", "ratelimit.rules[with.dots].period=1m",
				"ratelimit.circuit-breaker.minimum-number-of-calls=5", "ratelimit.deny-cache.enabled=false",
				"ratelimit.metrics.offenders-window=5m", "ratelimit.overrides.refresh-interval=1s")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.rules.bad.period            | 10x    | a duration                  | 10s, 1m
			ratelimit.rules.bad.period            | 10x    | a duration                  | PT10S
			ratelimit.rules.bad.on-store-failure  | never  | one of the accepted values  | local, allow, deny
			ratelimit.rules.bad.limit             | lots   | a valid Long                | a number
			ratelimit.redis.timeout               | fast   | a duration                  | 500ms
			""")
	void unconvertibleValuesFailStartUpListingTheAcceptedForms(String property, String value, String expected,
			String forms) {
		this.runner.withPropertyValues("ratelimit.rules.bad.limit=5", "ratelimit.rules.bad.period=1m", property + "=" + value)
			.run((context) -> {
				Throwable failure = context.getStartupFailure();
				assertThat(failure).isNotNull();
				FailureAnalysis analysis = new RateLimitBindFailureAnalyzer().analyze(failure);
				assertThat(analysis).as("analysis of " + failure).isNotNull();
				assertThat(analysis.getDescription()).contains("'" + property + "'").contains("'" + value + "'")
					.contains("is not " + expected);
				assertThat(analysis.getAction()).startsWith("Fix '" + property + "'.").contains(forms);
			});
	}

	@Test
	void missingLimitAndPeriodFailNamingTheProperty() {
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("ratelimit.rules.login.period=1m")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("'ratelimit.rules.login.limit'").contains("missing"));
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("ratelimit.rules.login.limit=5")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("'ratelimit.rules.login.period'").contains("missing"));
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(textBlock = """
			ipv4-prefix-length, 33, 32
			ipv4-prefix-length, -1, 32
			ipv6-prefix-length, 129, 128
			ipv6-prefix-length, -8, 128
			""")
	void clientIpPrefixLengthsOutOfRangeFailNamingTheProperty(String property, int value, int maximum) {
		this.runner.withPropertyValues("ratelimit.client-ip." + property + "=" + value).run((context) -> {
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'ratelimit.client-ip." + property + "'")
				.contains("between 0 and " + maximum + " but was " + value);
			assertThat(analysis.getAction()).contains("leading bits");
		});
	}

	@Test
	void clientIpPrefixLengthsReachEveryViewOfTheRequest() {
		this.runner.withPropertyValues("ratelimit.client-ip.ipv4-prefix-length=24",
				"ratelimit.client-ip.ipv6-prefix-length=48").run((context) -> {
			assertThat(context.getBean(ClientIp.class).subject("2001:db8:1:2::7")).isEqualTo("2001:db8:1::/48");
			MockHttpServletRequest request = new MockHttpServletRequest("GET", "/x");
			request.setRemoteAddr("203.0.113.7");
			assertThat(context.getBean(ServletRateLimitRequests.class).of(request).clientIp())
				.isEqualTo("203.0.113.0/24");
		});
	}

	@Test
	void burstOnAWindowAlgorithmIsRejected() {
		this.runner.withPropertyValues("ratelimit.rules.api.algorithm=fixed-window", "ratelimit.rules.api.burst=5")
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("'ratelimit.rules.api.burst'").contains("no meaning for fixed-window"));
	}

	@Test
	void invalidAnnotationFailsStartUp() {
		this.runner.withUserConfiguration(BadAnnotation.class)
			.run((context) -> assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("@RateLimited on " + BadAnnotation.Service.class.getName() + ".call (rule)")
				.contains("no rule 'missing'"));
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(classes = { RepeatedBadPeriod.class, RepeatedBadKey.class, RepeatedOnClass.class })
	void everyRepeatedAnnotationIsValidatedAtStartUp(Class<?> configuration) {
		this.runner.withUserConfiguration(configuration).run((context) -> {
			String description = analyze(context.getStartupFailure()).getDescription();
			assertThat(description).contains("@RateLimited on " + configuration.getName());
			assertThat(description).containsAnyOf("'10x' is not a duration", "'#symbl.' is not valid SpEL");
		});
	}

	@Test
	void configurationMetadataDescribesPropertiesAndHints() throws IOException {
		try (InputStream in = getClass().getClassLoader()
			.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
			assertThat(in).isNotNull();
			String metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			assertThat(metadata).contains("\"ratelimit.rules\"", "\"ratelimit.key-prefix\"", "\"ratelimit.headers\"",
					"\"ratelimit.rules.*.algorithm\"", "\"sliding-window-log\"", "\"api-key\"");
		}
	}

	private static FailureAnalysis analyze(Throwable failure) {
		assertThat(failure).as("start-up failure").isNotNull();
		FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(failure);
		if (analysis == null) {
			// a value of the wrong type fails in Spring Boot's binder, before the rules are compiled
			analysis = new RateLimitBindFailureAnalyzer().analyze(failure);
		}
		assertThat(analysis).as("analysis of " + failure).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	static class RedisFactoryConfiguration {

		@Bean
		LettuceConnectionFactory redisConnectionFactory() {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		static final RateLimitHeadersWriter HEADERS = (response, verdict) -> {
		};

		static final RateLimitRejectionHandler REJECTION = (request, response, verdict) -> response.setStatus(503);

		@Bean
		RateLimitHeadersWriter headersWriter() {
			return HEADERS;
		}

		@Bean
		RateLimitRejectionHandler rejectionHandler() {
			return REJECTION;
		}

		@Bean
		KeyResolver tenantKey() {
			return (request) -> request.getHeader("X-Tenant");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RepeatedBadPeriod {

		@Bean
		RepeatedBadPeriod service() {
			return new RepeatedBadPeriod();
		}

		@dev.ratelimit.RateLimited(name = "first", limit = 5, period = "1m")
		@dev.ratelimit.RateLimited(name = "second", limit = 5, period = "10x")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RepeatedBadKey {

		@Bean
		RepeatedBadKey service() {
			return new RepeatedBadKey();
		}

		@dev.ratelimit.RateLimited(name = "first", limit = 5, period = "1m")
		@dev.ratelimit.RateLimited(name = "second", limit = 5, period = "1m", key = "#symbl.")
		public void call(String symbol) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@dev.ratelimit.RateLimited(name = "first", limit = 5, period = "1m")
	@dev.ratelimit.RateLimited(name = "second", limit = 5, period = "10x")
	static class RepeatedOnClass {

		@Bean
		RepeatedOnClass service() {
			return new RepeatedOnClass();
		}

		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadAnnotation {

		@Bean
		Service service() {
			return new Service();
		}

		static class Service {

			@dev.ratelimit.RateLimited(rule = "missing")
			public void call() {
			}

		}

	}

}
