package dev.ratelimit.sample.playground;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.sample.SampleQuotas;
import dev.ratelimit.test.TestHttp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The playground's server side over HTTP, and its page's assets: what the browser test drives, without a browser.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=always", "ratelimit.redis.timeout=5s" })
class PlaygroundIntegrationTests {

	private static final Pattern ASSET = Pattern.compile("(?:src|href)=\"([^\"]+)\"");

	@LocalServerPort
	private int port;

	@Autowired
	private ApplicationContext context;

	private TestHttp http;

	@BeforeEach
	void flush() {
		SampleQuotas.restore(this.context);
		this.http = new TestHttp(this.port);
	}

	@Test
	void aRuleAppliedByThePlaygroundLimitsItsDemoEndpoint() {
		HttpResponse<String> applied = applyRule("gcra", 5, "10s", null);
		assertThat(applied.statusCode()).isEqualTo(200);
		assertThat(applied.body()).contains("\"name\":\"try-gcra\"", "\"limit\":5", "\"period\":\"PT10S\"",
				"\"source\":\"override\"");
		List<Integer> statuses = burst("gcra", 8);
		assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429, 429, 429);
	}

	@Test
	void applyingARuleAgainStartsFromAFullQuota() {
		applyRule("fixed-window", 3, "1m", null);
		assertThat(burst("fixed-window", 4)).containsExactly(200, 200, 200, 429);
		applyRule("fixed-window", 2, "1m", null);
		assertThat(burst("fixed-window", 3)).containsExactly(200, 200, 429);
	}

	@Test
	void theBurstAppliesToBucketsOnly() {
		applyRule("token-bucket", 2, "10s", 4L);
		assertThat(burst("token-bucket", 5)).containsExactly(200, 200, 200, 200, 429);
		// a window has no burst: the page's value is ignored rather than refused
		HttpResponse<String> window = applyRule("sliding-window-log", 2, "10s", 4L);
		assertThat(window.statusCode()).isEqualTo(200);
		assertThat(burst("sliding-window-log", 3)).containsExactly(200, 200, 429);
	}

	@Test
	void onlyThePlaygroundsRulesCanBeChanged() {
		HttpResponse<String> other = applyRule("hello", 1000, "1s", null);
		assertThat(other.statusCode()).isEqualTo(400);
		assertThat(other.body()).contains("algorithm 'hello' is not one of");
		HttpResponse<String> concurrency = applyRule("concurrency", 1000, "1s", null);
		assertThat(concurrency.statusCode()).isEqualTo(400);
		assertThat(this.http.get("/actuator/ratelimits/hello").body()).contains("\"source\":\"configuration\"");
	}

	@Test
	void anInvalidRuleIsRefusedWithTheReason() {
		HttpResponse<String> response = applyRule("gcra", 5, "forever", null);
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).contains("period");
		assertThat(applyRule("gcra", 0, "10s", null).statusCode()).isEqualTo(400);
	}

	@Test
	void thePageIsServedWithItsOwnAssetsOnly() throws IOException {
		HttpResponse<String> page = this.http.get("/playground");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("<title>Rate limit playground</title>", "id=\"timeline\"");
		List<String> assets = new ArrayList<>();
		Matcher asset = ASSET.matcher(page.body());
		while (asset.find()) {
			assets.add(asset.group(1));
		}
		assertThat(assets).containsExactlyInAnyOrder("/playground/playground.css", "/playground/playground.js");
		for (String name : assets) {
			// as the browser resolves them against the page's address, /playground
			HttpResponse<String> served = this.http.get(URI.create("/playground").resolve(name).toString());
			assertThat(served.statusCode()).as(name).isEqualTo(200);
			// nothing from another site: the page works without internet access (the SVG namespace is a name only)
			assertThat(served.body().replace("http://www.w3.org/2000/svg", "")).as(name).doesNotContain("http://",
					"https://", "//cdn", "@import");
		}
		String source = Files.readString(Path.of("src/main/resources/static/playground/index.html"));
		assertThat(source).isEqualTo(page.body());
	}

	private HttpResponse<String> applyRule(String algorithm, long limit, String period, Long burst) {
		String json = "{\"algorithm\":\"" + algorithm + "\",\"limit\":" + limit + ",\"period\":\"" + period
				+ "\",\"burst\":" + burst + "}";
		return this.http.call("POST", "/playground/rule", json, Map.of());
	}

	private List<Integer> burst(String algorithm, int count) {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			statuses.add(this.http.get("/playground/demo/" + algorithm).statusCode());
		}
		return statuses;
	}

}
