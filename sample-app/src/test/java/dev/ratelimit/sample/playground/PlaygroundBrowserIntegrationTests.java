package dev.ratelimit.sample.playground;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.sample.SampleQuotas;
import dev.ratelimit.test.TestHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The playground end to end in a real headless Chromium: pick GCRA 5 per 10 s, fire a burst of 8, see 5 admitted and
 * 3 denied in the timeline with the {@code RateLimit} header of each, and the remaining quota drawn beside the
 * verdicts (4, 3, 2, 1, 0, then 0 for each denied request); then the same rule and the same 8 requests sent
 * as curl would send them get the same verdicts and headers. The page in that state is saved as
 * {@code sample-app/target/playground.png} (the screenshot in docs/images/ is one of these).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=always", "ratelimit.redis.timeout=5s" })
class PlaygroundBrowserIntegrationTests {

	@LocalServerPort
	private int port;

	@Autowired
	private ApplicationContext context;

	private ChromeDriver browser;

	@BeforeEach
	void start() {
		SampleQuotas.restore(this.context);
		this.browser = Chromium.start(1100, 900);
	}

	@AfterEach
	void quit() {
		if (this.browser != null) {
			this.browser.quit();
		}
	}

	@Test
	void aBurstOfEightAgainstGcraFivePerTenSecondsShowsFiveAdmittedAndThreeDenied() throws IOException {
		this.browser.get("http://127.0.0.1:" + this.port + "/playground");
		new Select(this.browser.findElement(By.id("algorithm"))).selectByValue("gcra");
		replace("limit", "5");
		replace("period", "10s");
		replace("burst", "5");
		replace("count", "8");
		// GCRA gives one unit back every 2 s: a browser that takes longer than that to send the burst sees one more
		// admitted than a burst shows; such a run is tried again (applying the rule again fills the quota), twice at most
		for (int attempt = 0; attempt < 3; attempt++) {
			this.browser.findElement(By.id("apply")).click();
			waitUntil(() -> rows().isEmpty()
					&& this.browser.findElement(By.id("rule-status")).getText().startsWith("rule try-gcra"));
			assertThat(this.browser.findElement(By.id("rule-status")).getText())
				.isEqualTo("rule try-gcra: gcra 5 per 10s, burst 5 (your quota is full again)");
			this.browser.findElement(By.id("send-burst")).click();
			waitUntil(() -> rows().size() == 8);
			String lastAt = rows().get(7).findElement(By.className("at")).getText();
			if (this.browser.findElement(By.id("admitted")).getText().equals("5")
					|| Long.parseLong(lastAt.replace(" ms", "")) < 1_500) {
				break;
			}
		}

		assertThat(this.browser.findElement(By.id("admitted")).getText()).isEqualTo("5");
		assertThat(this.browser.findElement(By.id("denied")).getText()).isEqualTo("3");
		assertThat(this.browser.findElements(By.cssSelector("#timeline circle.admitted"))).hasSize(5);
		assertThat(this.browser.findElements(By.cssSelector("#timeline circle.denied"))).hasSize(3);
		// the remaining quota beside the verdicts: the r of each response's RateLimit header, in order
		List<WebElement> remaining = this.browser.findElements(By.cssSelector("#timeline rect.remaining"));
		assertThat(remaining).extracting((bar) -> bar.getDomAttribute("data-remaining"))
			.containsExactly("4", "3", "2", "1", "0", "0", "0", "0");
		assertThat(remaining).extracting((bar) -> bar.getDomAttribute("class"))
			.containsExactly("remaining admitted", "remaining admitted", "remaining admitted", "remaining admitted",
					"remaining admitted", "remaining denied", "remaining denied", "remaining denied");
		assertThat(this.browser.findElements(By.cssSelector("#timeline text.remaining-label")))
			.extracting(WebElement::getText)
			.containsExactly("4", "3", "2", "1", "0", "0", "0", "0");
		assertThat(this.browser.findElement(By.cssSelector("#timeline path.remaining-line")).getDomAttribute("d"))
			.startsWith("M");
		List<String> statuses = new ArrayList<>();
		List<String> rateLimits = new ArrayList<>();
		for (WebElement row : rows()) {
			statuses.add(row.findElement(By.className("status")).getText());
			rateLimits.add(row.findElement(By.className("ratelimit")).getText());
		}
		assertThat(statuses).containsExactly("200", "200", "200", "200", "200", "429", "429", "429");
		assertThat(rateLimits.get(0)).matches("\"try-gcra\";r=4;t=[12]");
		assertThat(rateLimits.get(7)).matches("\"try-gcra\";r=0;t=[12]");
		assertThat(rows().get(7).findElement(By.className("retry-after")).getText()).matches("[12]");
		assertThat(rows().get(0).findElement(By.className("policy")).getText()).isEqualTo("\"try-gcra\";q=5;w=10");
		assertThat(this.browser.findElement(By.id("last-headers")).getText()).startsWith("RateLimit: \"try-gcra\";r=0;t=");
		Path screenshot = Path.of("target/playground.png");
		Files.write(screenshot, this.browser.getScreenshotAs(OutputType.BYTES));

		// what curl sees under the same rule: the same verdicts and headers
		TestHttp http = new TestHttp(this.port);
		HttpResponse<String> applied = http.call("POST", "/playground/rule",
				"{\"algorithm\":\"gcra\",\"limit\":5,\"period\":\"10s\",\"burst\":5}", Map.of());
		assertThat(applied.statusCode()).isEqualTo(200);
		List<String> curlStatuses = new ArrayList<>();
		List<String> curlRateLimits = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			HttpResponse<String> response = http.get("/playground/demo/gcra");
			curlStatuses.add(Integer.toString(response.statusCode()));
			curlRateLimits.add(response.headers().firstValue("RateLimit").orElse(""));
		}
		assertThat(curlStatuses).isEqualTo(statuses);
		// t is the seconds to the next unit, rounded up: the same unless a second went by between the two
		assertThat(withoutT(curlRateLimits)).isEqualTo(withoutT(rateLimits));
	}

	private List<WebElement> rows() {
		return this.browser.findElements(By.cssSelector("#responses tbody tr"));
	}

	private void replace(String id, String value) {
		WebElement input = this.browser.findElement(By.id(id));
		input.clear();
		input.sendKeys(value);
	}

	private void waitUntil(java.util.function.BooleanSupplier condition) {
		WebDriverWait wait = new WebDriverWait(this.browser, Duration.ofSeconds(20));
		wait.withMessage(() -> "the page shows: " + this.browser.findElement(By.tagName("body")).getText());
		wait.until((driver) -> condition.getAsBoolean());
	}

	private static List<String> withoutT(List<String> headers) {
		return headers.stream().map((header) -> header.replaceAll(";t=\\d+", "")).toList();
	}

}
