package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.test.FreshState;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static dev.ratelimit.test.TestHttp.header;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code day} quota with {@code zone-key} over HTTP against real Redis, on a time the test gives the script: a
 * subject in Europe/Berlin and one in America/New_York each reset at their own local midnight, and their headers say
 * so; a value that is not an IANA zone counts in the rule's {@code zone} (UTC) and adds no key; a subject whose zone
 * changes keeps one key and starts a window in its new zone; the actuator reads {@code resetsAt} in the zone given by
 * {@code ?zone=}.
 */
@RedisStandaloneTest
@SpringBootTest(classes = CalendarSubjectZonesIntegrationTests.ZonesApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-zones-test", "management.endpoints.web.exposure.include=ratelimits",
				"ratelimit.rules.daily.match.paths=/hello", "ratelimit.rules.daily.key=header:X-Customer",
				"ratelimit.rules.daily.calendar=day", "ratelimit.rules.daily.limit=2",
				"ratelimit.rules.daily.zone-key=header:X-Zone",
				// a remembered denial lasts its retry-after on the real clock; this test drives the time
				"ratelimit.deny-cache.enabled=false" })
class CalendarSubjectZonesIntegrationTests {

	/** Saturday 28 March 2026, 23:59:59 in Berlin (UTC+1); 18:59:59 in New York (UTC-4). */
	private static final Instant BERLIN_LAST_SECOND = Instant.parse("2026-03-28T22:59:59Z");

	private static final Instant BERLIN_MIDNIGHT = Instant.parse("2026-03-28T23:00:00Z");

	private static final Instant UTC_MIDNIGHT = Instant.parse("2026-03-29T00:00:00Z");

	private static final Instant NEW_YORK_MIDNIGHT = Instant.parse("2026-03-29T04:00:00Z");

	static final MutableClock CLOCK = new MutableClock(micros(BERLIN_LAST_SECOND));

	@LocalServerPort
	private int port;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Autowired
	private RateLimiter limiter;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisEndpoint redis = RedisStandaloneExtension.shared();
		registry.add("spring.data.redis.url", redis::uri);
	}

	@BeforeEach
	void fresh() {
		FreshState.start(this.connectionFactory, this.limiter);
		CLOCK.setMicros(micros(BERLIN_LAST_SECOND));
	}

	@Test
	void eachSubjectResetsAtItsOwnLocalMidnightAndItsHeadersSaySo() {
		for (int i = 1; i <= 2; i++) {
			assertThat(call("berlin-co", "Europe/Berlin").statusCode()).isEqualTo(200);
			assertThat(call("ny-co", "America/New_York").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> berlin = call("berlin-co", "Europe/Berlin");
		assertThat(berlin.statusCode()).isEqualTo(429);
		assertThat(header(berlin, "RateLimit")).isEqualTo("\"daily\";r=0;t=1");
		assertThat(header(berlin, "X-RateLimit-Reset")).isEqualTo(seconds(BERLIN_MIDNIGHT));
		assertThat(header(berlin, "Retry-After")).isEqualTo("1");
		HttpResponse<String> newYork = call("ny-co", "America/New_York");
		assertThat(newYork.statusCode()).isEqualTo(429);
		assertThat(header(newYork, "RateLimit")).isEqualTo("\"daily\";r=0;t=18001");
		assertThat(header(newYork, "X-RateLimit-Reset")).isEqualTo(seconds(NEW_YORK_MIDNIGHT));

		CLOCK.setMicros(micros(BERLIN_MIDNIGHT));
		assertThat(call("berlin-co", "Europe/Berlin").statusCode()).as("a new day in Berlin").isEqualTo(200);
		assertThat(call("ny-co", "America/New_York").statusCode()).as("still 19:00 in New York").isEqualTo(429);

		CLOCK.setMicros(micros(NEW_YORK_MIDNIGHT) - 1);
		assertThat(call("ny-co", "America/New_York").statusCode()).as("a microsecond before").isEqualTo(429);
		CLOCK.setMicros(micros(NEW_YORK_MIDNIGHT));
		HttpResponse<String> nextDay = call("ny-co", "America/New_York");
		assertThat(nextDay.statusCode()).as("a new day in New York").isEqualTo(200);
		// Berlin's 29 March lasts 23 hours; New York's 29 March 24
		assertThat(header(nextDay, "X-RateLimit-Reset"))
			.isEqualTo(seconds(Instant.parse("2026-03-30T04:00:00Z")));
		assertThat(header(call("berlin-co", "Europe/Berlin"), "X-RateLimit-Reset"))
			.isEqualTo(seconds(Instant.parse("2026-03-29T22:00:00Z")));
	}

	@Test
	void aValueThatIsNotAZoneCountsInTheRulesZoneUnderTheSameKey() {
		HttpResponse<String> first = call("lost", "Mars/Olympus_Mons");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(header(first, "X-RateLimit-Reset")).isEqualTo(seconds(UTC_MIDNIGHT));
		List<String> oneKey = keys();
		assertThat(call("lost", "+05:00").statusCode()).as("an offset is not an IANA zone").isEqualTo(200);
		HttpResponse<String> third = call("lost", "Europe/Nowhere");
		assertThat(third.statusCode()).as("the same quota whatever the value").isEqualTo(429);
		assertThat(header(third, "X-RateLimit-Reset")).isEqualTo(seconds(UTC_MIDNIGHT));
		assertThat(call("lost", "").statusCode()).isEqualTo(429);
		assertThat(call("lost", null).statusCode()).isEqualTo(429);
		assertThat(keys()).as("no key per value").isEqualTo(oneKey);
	}

	@Test
	void aSubjectWhoseZoneChangesKeepsOneKeyAndStartsAWindowInItsNewZone() {
		CLOCK.setMicros(micros(Instant.parse("2026-03-28T10:00:00Z")));
		assertThat(call("mover", "Europe/Berlin").statusCode()).isEqualTo(200);
		assertThat(call("mover", "Europe/Berlin").statusCode()).isEqualTo(200);
		assertThat(call("mover", "Europe/Berlin").statusCode()).isEqualTo(429);
		List<String> oneKey = keys();
		HttpResponse<String> moved = call("mover", "America/New_York");
		assertThat(moved.statusCode()).as("Berlin's window is not New York's: counted from nothing").isEqualTo(200);
		assertThat(header(moved, "X-RateLimit-Reset")).isEqualTo(seconds(NEW_YORK_MIDNIGHT));
		assertThat(call("mover", "America/New_York").statusCode()).isEqualTo(200);
		assertThat(call("mover", "America/New_York").statusCode()).isEqualTo(429);
		assertThat(keys()).isEqualTo(oneKey);
		// a zone that shares Berlin's calendar (Paris) counts in the same window
		HttpResponse<String> paris = call("mover", "Europe/Paris");
		assertThat(paris.statusCode()).as("New York's window is not Paris's").isEqualTo(200);
		assertThat(call("mover", "Europe/Berlin").statusCode()).as("Paris's window is Berlin's").isEqualTo(200);
		assertThat(call("mover", "Europe/Berlin").statusCode()).isEqualTo(429);
	}

	@Test
	void theActuatorReadsResetsAtInTheZoneItIsGiven() {
		call("ny-co", "America/New_York");
		TestHttp http = new TestHttp(this.port);
		HttpResponse<String> inNewYork = http.get("/actuator/ratelimits/daily/ny-co?zone=America/New_York");
		assertThat(inNewYork.statusCode()).isEqualTo(200);
		assertThat(inNewYork.body()).contains("\"used\":1", "\"resetsAt\":\"" + NEW_YORK_MIDNIGHT + "\"");
		HttpResponse<String> unused = http.get("/actuator/ratelimits/daily/berlin-co?zone=Europe/Berlin");
		assertThat(unused.body()).contains("\"used\":0", "\"resetsAt\":\"" + BERLIN_MIDNIGHT + "\"");
		assertThat(http.get("/actuator/ratelimits/daily/berlin-co").body()).as("the rule's zone, UTC")
			.contains("\"resetsAt\":\"" + UTC_MIDNIGHT + "\"");
		HttpResponse<String> bogus = http.get("/actuator/ratelimits/daily/berlin-co?zone=Mars/Olympus_Mons");
		assertThat(bogus.statusCode()).isEqualTo(400);
		assertThat(bogus.body()).contains("IANA zone").doesNotContain("Olympus");
	}

	private HttpResponse<String> call(String customer, String zone) {
		Map<String, String> headers = (zone != null) ? Map.of("X-Customer", customer, "X-Zone", zone)
				: Map.of("X-Customer", customer);
		return new TestHttp(this.port).get("/hello", headers);
	}

	private List<String> keys() {
		List<String> keys = new ArrayList<>();
		try (var connection = this.connectionFactory.getConnection()) {
			connection.keyCommands().keys("*".getBytes()).forEach((key) -> keys.add(new String(key)));
		}
		keys.sort(null);
		return keys;
	}

	private static long micros(Instant instant) {
		return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
	}

	private static String seconds(Instant instant) {
		return Long.toString(instant.getEpochSecond());
	}

	/**
	 * One endpoint; the Redis store on the test's time (the script's {@code TIME} replaced), and the same clock for the
	 * headers.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration(excludeName = {
			"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
	@Import(ZonesApplication.Hello.class)
	static class ZonesApplication {

		@RestController
		static class Hello {

			@GetMapping("/hello")
			String hello() {
				return "ok";
			}

		}

		@Bean
		Clock drivenClock() {
			return CLOCK;
		}

		@Bean
		RedisRateLimitStore drivenRedisStore(LettuceConnectionFactory connectionFactory) {
			RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(connectionFactory),
					"rl-zones", Duration.ofSeconds(2), CLOCK::micros);
			store.loadScripts();
			return store;
		}

	}

}
