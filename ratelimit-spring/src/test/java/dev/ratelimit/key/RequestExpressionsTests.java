package dev.ratelimit.key;

import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.expression.ParseException;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Templates read the request through its servlet-named methods, as they did when {@code request} was the servlet
 * request; what the request does not offer fails at start-up, naming the way to the servlet request itself.
 */
class RequestExpressionsTests {

	private final RequestExpressions expressions = new RequestExpressions(null);

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiterString = "=>", quoteCharacter = '"', textBlock = """
			"#{request.getHeader('X-Tenant')}"                   => acme
			"#{#request.getHeader('X-Tenant')}"                  => acme
			"#{request.getParameter('pageSize') ?: 1}"           => 5
			"#{request.getParameter('missing') ?: 1}"            => 1
			"#{request.getParameter('username')?.toLowerCase()}" => alice
			"#{request.getUserPrincipal()?.name}"                => alice-principal
			"#{request.userPrincipal?.name}"                     => alice-principal
			"#{request.remoteAddr}"                              => 10.0.0.1
			"#{request.getRemoteAddr()}"                         => 10.0.0.1
			"#{request.method}"                                  => POST
			"#{request.requestURI}"                              => /shop/api/search
			"#{request.contextPath}"                             => /shop
			"#{request.path()}"                                  => /api/search
			"#{request.path}"                                    => /api/search
			"#{request.getAttribute('plan')}"                    => pro
			"#{request.nativeRequest.serverName}"                => api.example.com
			"tenant-#{request.getHeader('X-Tenant')}"            => tenant-acme
			""")
	void templatesReadTheRequestWithTheServletApiNames(String template, String value) {
		MockHttpServletRequest servlet = new MockHttpServletRequest("POST", "/shop/api/search");
		servlet.setContextPath("/shop");
		servlet.setServerName("api.example.com");
		servlet.setRemoteAddr("10.0.0.1");
		servlet.setUserPrincipal(() -> "alice-principal");
		servlet.addHeader("X-Tenant", "acme");
		servlet.addParameter("pageSize", "5");
		servlet.addParameter("username", "Alice");
		servlet.setAttribute("plan", "pro");
		Object result = this.expressions.evaluate(this.expressions.parse(template), new ServletRateLimitRequest(servlet));
		assertThat(result).hasToString(value);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiterString = "=>", quoteCharacter = '"', textBlock = """
			"#{request.getSession().id}"                     => method 'getSession'     => request.nativeRequest.getSession()
			"#{request.serverName}"                          => property 'serverName'   => request.nativeRequest.serverName
			"#{#request.getCookies()}"                       => method 'getCookies'     => request.nativeRequest.getCookies()
			"ip-#{T(String).valueOf(request.queryString)}"   => property 'queryString'  => request.nativeRequest.queryString
			""")
	void whatTheRequestDoesNotOfferFailsAtParsingNamingTheNativeRequest(String template, String missing, String fix) {
		assertThatExceptionOfType(ParseException.class).isThrownBy(() -> this.expressions.parse(template))
			.withMessageContaining("request has no " + missing)
			.withMessageContaining("getHeader, getMethod")
			.withMessageContaining("(e.g. " + fix + ")");
	}

}
