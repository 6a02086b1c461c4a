package dev.ratelimit.sample.playground;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * {@code GET /playground}: the page ({@code static/playground/index.html}, with its script and styles beside it; no
 * build step, nothing loaded from another site).
 */
@Configuration(proxyBeanMethods = false)
class PlaygroundPage implements WebMvcConfigurer {

	@Override
	public void addViewControllers(ViewControllerRegistry registry) {
		registry.addViewController("/playground").setViewName("forward:/playground/index.html");
	}

}
