package dev.ratelimit.sample;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class HelloController {

	@GetMapping("/api/hello")
	String hello() {
		return "hello\n";
	}

}
