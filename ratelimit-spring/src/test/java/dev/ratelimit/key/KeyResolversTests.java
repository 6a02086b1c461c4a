package dev.ratelimit.key;

import dev.ratelimit.ClientIp;
import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.web.RouteLookup;
import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.expression.ParseException;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class KeyResolversTests {

	private static final KeyResolver TENANT = (request) -> "tenant-" + request.getHeader("A");

	private final RequestExpressions expressions = new RequestExpressions(null);

	private final MockHttpServletRequest servletRequest = new MockHttpServletRequest("GET", "/api/items");

	private final RateLimitRequest request = new ServletRateLimitRequest(this.servletRequest);

	KeyResolversTests() {
		this.servletRequest.setRemoteAddr("10.0.0.1");
		this.servletRequest.setUserPrincipal(() -> "alice");
		this.servletRequest.addHeader("A", "x");
		this.servletRequest.addHeader("B", "y");
		this.servletRequest.addHeader("X-Tenant", "acme");
		// as Spring MVC leaves it once it has chosen the handler
		this.servletRequest.setAttribute(RouteLookup.MATCHED_PATTERN_ATTRIBUTE, "/api/items");
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiterString = "=>", quoteCharacter = '"', textBlock = """
			"ip+#{request.getHeader('A')}"                                 => 10.0.0.1|x
			"#{request.getHeader('A')}+endpoint"                           => x|GET /api/items
			"user+#{request.getHeader('A')}+header:X-Tenant"               => alice|x|acme
			"ip + #{request.getHeader('A')} + api-key"                     => 10.0.0.1|x|10.0.0.1
			"#{request.getHeader('A') + request.getHeader('B')}"           => xy
			"ip+#{request.getHeader('A') + '+' + request.getHeader('B')}"  => 10.0.0.1|x+y
			"#{'a+b'}"                                                     => a+b
			"#{'a+b'}+global"                                              => a+b|global
			"#{'}'}+ip"                                                    => }|10.0.0.1
			"#{'a}+{b'.length()}+ip"                                       => 5|10.0.0.1
			"#{""}+""}+ip"                                                 => }+|10.0.0.1
			"#{'it''s+}'}+ip"                                              => it's+}|10.0.0.1
			"#{ {'a', 'b'}.size() + 1 }+ip"                                => 3|10.0.0.1
			"#{ {'k': {'n': 'v'}}['k']['n'] }+endpoint"                    => v|GET /api/items
			"tenant-#{request.getHeader('A')}"                             => tenant-x
			"tenant-#{request.getHeader('A')}+ip"                          => tenant-x|10.0.0.1
			"#{request.getHeader('A')}-#{request.getHeader('B')}"          => x-y
			"ip+#{request.getHeader('A')}-#{request.getHeader('B')}"       => 10.0.0.1|x-y
			"ip+#{request.getHeader('Missing')}"                           => 10.0.0.1|10.0.0.1
			"#{''}+endpoint"                                               => 10.0.0.1|GET /api/items
			"@tenant+#{request.getHeader('B')}"                            => tenant-x|y
			""")
	void templatePartsCombineWithEveryOtherPart(String spec, String subject) {
		assertThat(parse(spec).resolve(this.request)).isEqualTo(subject);
	}

	@Test
	void singlePartsAreTheResolversThemselves() {
		assertThat(parse("@tenant")).isSameAs(TENANT);
		assertThat(parse(" ip ").resolve(this.request)).isEqualTo("10.0.0.1");
		assertThat(parse("header:X-Tenant+endpoint").resolve(this.request)).isEqualTo("acme|GET /api/items");
	}

	@Test
	void endpointIsTheRouteTemplateAndPathTheConcretePath() {
		MockHttpServletRequest alice = new MockHttpServletRequest("GET", "/api/reports/alice");
		alice.setAttribute(RouteLookup.MATCHED_PATTERN_ATTRIBUTE, "/api/reports/{user}");
		MockHttpServletRequest bob = new MockHttpServletRequest("GET", "/api/reports/bob");
		bob.setAttribute(RouteLookup.MATCHED_PATTERN_ATTRIBUTE, "/api/reports/{user}");
		assertThat(parse("endpoint").resolve(new ServletRateLimitRequest(alice))).isEqualTo("GET /api/reports/{user}");
		assertThat(parse("endpoint").resolve(new ServletRateLimitRequest(bob))).isEqualTo("GET /api/reports/{user}");
		assertThat(parse("path").resolve(new ServletRateLimitRequest(alice))).isEqualTo("GET /api/reports/alice");
		assertThat(parse("path").resolve(new ServletRateLimitRequest(bob))).isEqualTo("GET /api/reports/bob");
	}

	@Test
	void requestsThatNoHandlerMapsShareOneEndpointWhateverTheirMethod() {
		MockHttpServletRequest get = new MockHttpServletRequest("GET", "/nowhere/1");
		MockHttpServletRequest post = new MockHttpServletRequest("POST", "/elsewhere");
		assertThat(parse("endpoint").resolve(new ServletRateLimitRequest(get))).isEqualTo(KeyResolvers.UNMAPPED);
		assertThat(parse("endpoint").resolve(new ServletRateLimitRequest(post))).isEqualTo(KeyResolvers.UNMAPPED);
	}

	@Test
	void endpointsNameOnlyTheStandardMethods() {
		MockHttpServletRequest custom = new MockHttpServletRequest("BREW", "/api/items");
		custom.setAttribute(RouteLookup.MATCHED_PATTERN_ATTRIBUTE, "/api/items");
		assertThat(parse("endpoint").resolve(new ServletRateLimitRequest(custom))).isEqualTo("OTHER /api/items");
		assertThat(parse("path").resolve(new ServletRateLimitRequest(custom))).isEqualTo("BREW /api/items");
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "ip", "user", "api-key", "header:X-Missing", "#{''}", "#{request.getHeader('X-Missing')}" })
	void everyIpSubjectIsTheClientNetwork(String spec) {
		MockHttpServletRequest anonymous = new MockHttpServletRequest("GET", "/api/items");
		anonymous.setRemoteAddr("2001:db8:1:2:aaaa::7");
		ClientIp by48 = ClientIp.of(32, 48);
		assertThat(parse(spec).resolve(new ServletRateLimitRequest(anonymous))).isEqualTo("2001:db8:1:2::/64");
		assertThat(parse(spec).resolve(new ServletRateLimitRequest(anonymous, by48, RouteLookup.matchedPattern())))
			.isEqualTo("2001:db8:1::/48");
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiterString = "=>", quoteCharacter = '"', textBlock = """
			"ip+#{request.getHeader('A')"              => '#{' at position 3 is never closed by '}'
			"#{request.getHeader('A')+ip"              => '#{' at position 0 is never closed by '}'
			"#{'a}+ip"                                 => string literal at position 2 is never closed
			"#{ {'a'}.size() +ip"                      => '#{' at position 0 is never closed by '}'
			"tenant-#{request.getHeader('A'+endpoint"  => '#{' at position 7 is never closed by '}'
			""")
	void unbalancedTemplatesAreRejectedWithTheirPosition(String spec, String message) {
		assertThatIllegalArgumentException().isThrownBy(() -> parse(spec))
			.withMessageContaining("not a valid SpEL template")
			.withMessageContaining(message);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "ip+", "+ip", "ip++user", "ip+ +user", "  " })
	void emptyPartsAreRejected(String spec) {
		assertThatIllegalArgumentException().isThrownBy(() -> parse(spec)).withMessageContaining("empty");
	}

	@Test
	void unknownPartsAreRejectedByName() {
		assertThatIllegalArgumentException().isThrownBy(() -> parse("ip+#{'a'}+nobody"))
			.withMessage("unknown key type 'nobody'");
		assertThatIllegalArgumentException().isThrownBy(() -> parse("ip}")).withMessage("unknown key type 'ip}'");
	}

	@Test
	void invalidSpelInsideBalancedBracesIsASpelParseError() {
		assertThatExceptionOfType(ParseException.class).isThrownBy(() -> parse("ip+#{request.getHeader(}"));
	}

	private KeyResolver parse(String spec) {
		return KeyResolvers.parse(spec, "X-API-Key", this.expressions, (name) -> {
			if (name.equals("tenant")) {
				return TENANT;
			}
			throw new IllegalArgumentException("there is no KeyResolver bean named '" + name + "'");
		});
	}

}
