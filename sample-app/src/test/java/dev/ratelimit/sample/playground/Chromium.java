package dev.ratelimit.sample.playground;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A headless Chromium driven by Selenium, from the system's packages (Debian's {@code chromium} and
 * {@code chromium-driver}; {@code .ci/run} installs them on a fresh machine). Never downloaded at test time. Where
 * they are missing, the test is skipped with a message that says how to install them, except in CI (the {@code CI}
 * environment variable set), where that fails the build: a browser test skipped there would prove nothing.
 */
final class Chromium {

	private static final List<String> BROWSERS = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser",
			"/usr/bin/google-chrome");

	private static final List<String> DRIVERS = List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

	private Chromium() {
	}

	/**
	 * Starts a headless Chromium of the given window size, or skips (fails in CI) when there is none.
	 * @param width the window's width
	 * @param height the window's height
	 * @return the driver; quit it when done
	 */
	static ChromeDriver start(int width, int height) {
		Optional<Path> browser = find("CHROME_BIN", BROWSERS);
		Optional<Path> driver = find("CHROMEDRIVER", DRIVERS);
		if (browser.isEmpty() || driver.isEmpty()) {
			String message = "No " + (browser.isEmpty() ? "Chromium (looked at $CHROME_BIN, " + BROWSERS + ")" : "")
					+ (browser.isEmpty() && driver.isEmpty() ? " and no " : "")
					+ (driver.isEmpty() ? "chromedriver (looked at $CHROMEDRIVER, " + DRIVERS + ")" : "")
					+ ": the playground's browser test needs them. Install them with"
					+ " 'sudo apt-get install -y chromium chromium-driver' (Debian, Ubuntu), as .ci/run does.";
			System.err.println("[browser test] " + message);
			if (System.getenv("CI") != null) {
				Assertions.fail(message + " In CI this fails rather than skips.");
			}
			Assumptions.abort(message + " Skipped outside CI.");
		}
		ChromeOptions options = new ChromeOptions();
		options.setBinary(browser.get().toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--window-size=" + width + "," + height, "--hide-scrollbars", "--force-device-scale-factor=1");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.get().toFile())
			.usingAnyFreePort()
			.build();
		return new ChromeDriver(service, options);
	}

	private static Optional<Path> find(String variable, List<String> candidates) {
		String configured = System.getenv(variable);
		if (configured != null && !configured.isBlank()) {
			return Optional.of(Path.of(configured)).filter(Files::isExecutable);
		}
		return candidates.stream().map(Path::of).filter(Files::isExecutable).findFirst();
	}

}
