package dev.ratelimit.web;

import java.util.Collections;
import java.util.List;

import dev.ratelimit.ClientIp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockServletContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.filter.ServerHttpObservationFilter;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.handler.HandlerMappingIntrospector;

import static org.assertj.core.api.Assertions.assertThat;

class HandlerMappingRoutesTests {

	private final AnnotationConfigWebApplicationContext context = new AnnotationConfigWebApplicationContext();

	private final RouteLookup routes;

	HandlerMappingRoutesTests() {
		this.context.setServletContext(new MockServletContext());
		this.context.register(Mvc.class);
		this.context.refresh();
		HandlerMappingIntrospector introspector = this.context.getBean(HandlerMappingIntrospector.class);
		this.routes = new HandlerMappingRoutes(introspector::getHandlerMappings);
	}

	@AfterEach
	void close() {
		this.context.close();
	}

	@Test
	void theRouteIsThePatternOfTheHandler() {
		assertThat(this.routes.route(request("GET", "/api/reports/alice"))).isEqualTo("/api/reports/{user}");
		assertThat(this.routes.route(request("GET", "/api/reports/bob"))).isEqualTo("/api/reports/{user}");
		assertThat(this.routes.route(request("GET", "/api/items"))).isEqualTo("/api/items");
	}

	@Test
	void aUrlMappedHandlerGivesItsMostSpecificMatchingPattern() {
		assertThat(this.routes.route(request("GET", "/static/app.js"))).isEqualTo("/static/**");
	}

	@Test
	void requestsNoHandlerServesHaveNoRoute() {
		assertThat(this.routes.route(request("GET", "/nowhere"))).isNull();
		assertThat(this.routes.route(request("DELETE", "/api/items"))).as("405").isNull();
	}

	@Test
	void theRequestReachesTheDispatcherServletAsItCame() {
		MockHttpServletRequest request = request("GET", "/api/reports/alice");
		Object observation = new Object();
		request.setAttribute(ServerHttpObservationFilter.CURRENT_OBSERVATION_CONTEXT_ATTRIBUTE, observation);
		List<String> before = Collections.list(request.getAttributeNames());
		assertThat(this.routes.route(request)).isEqualTo("/api/reports/{user}");
		assertThat(Collections.list(request.getAttributeNames())).containsExactlyInAnyOrderElementsOf(before);
		assertThat(request.getAttribute(ServerHttpObservationFilter.CURRENT_OBSERVATION_CONTEXT_ATTRIBUTE))
			.isSameAs(observation);
	}

	@Test
	void theServletViewLooksTheRouteUpOncePerRequest() {
		int[] lookups = new int[1];
		RouteLookup counting = (request) -> {
			lookups[0]++;
			return this.routes.route(request);
		};
		MockHttpServletRequest request = request("GET", "/api/reports/alice");
		ServletRateLimitRequests views = new ServletRateLimitRequests(ClientIp.DEFAULT, counting);
		assertThat(views.of(request).route()).isEqualTo("/api/reports/{user}");
		assertThat(views.of(request).route()).isEqualTo("/api/reports/{user}");
		MockHttpServletRequest unmapped = request("GET", "/nowhere");
		assertThat(views.of(unmapped).route()).isNull();
		assertThat(views.of(unmapped).route()).isNull();
		assertThat(lookups[0]).isEqualTo(2);
	}

	private static MockHttpServletRequest request(String method, String path) {
		return new MockHttpServletRequest(method, path);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	@Import(Controller.class)
	static class Mvc implements WebMvcConfigurer {

		@Override
		public void addResourceHandlers(ResourceHandlerRegistry registry) {
			registry.addResourceHandler("/static/**").addResourceLocations("classpath:/static/");
		}

	}

	@RestController
	static class Controller {

		@GetMapping("/api/reports/{user}")
		String report(@PathVariable String user) {
			return user;
		}

		@GetMapping("/api/items")
		String items() {
			return "items";
		}

	}

}
