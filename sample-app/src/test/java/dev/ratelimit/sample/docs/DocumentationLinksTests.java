package dev.ratelimit.sample.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of README.md and docs/**.md leads to a file that exists and, with an anchor, to a heading of it.
 */
class DocumentationLinksTests {

	private final MarkdownLinkChecker checker = new MarkdownLinkChecker();

	@Test
	void everyRelativeLinkOfTheReadmeAndTheDocsResolves() {
		Path root = Markdown.repositoryRoot();
		List<Path> files = Markdown.documentation(root);
		assertThat(files).contains(root.resolve("README.md"), root.resolve("docs/configuration.md"));
		assertThat(this.checker.brokenLinks(root, files)).isEmpty();
	}

	@Test
	void aMissingFileOrHeadingIsReported(@TempDir Path dir) throws Exception {
		Files.writeString(dir.resolve("a.md"), """
				# Title

				## Counting only some outcomes (`count-when`)

				See [b](b.md), [b's part](b.md#part-two), [here](#counting-only-some-outcomes-count-when),
				[gone](c.md), [no part](b.md#part-three), [none here](#nowhere), [web](https://example.org/x.md#y).

				```text
				[inside code](not-checked.md)
				```
				""");
		Files.writeString(dir.resolve("b.md"), "# B\n\n## Part two\n");
		assertThat(this.checker.brokenLinks(dir, List.of(dir.resolve("a.md")))).containsExactly(
				"a.md:6: c.md (no such file: " + dir.resolve("c.md") + ")",
				"a.md:6: b.md#part-three (no heading with anchor #part-three in b.md)",
				"a.md:6: #nowhere (no heading with anchor #nowhere in a.md)");
	}

	@Test
	void anchorsFollowGitHubsRules() {
		assertThat(Markdown.slug("Counting only some outcomes (`count-when`)")).isEqualTo("counting-only-some-outcomes-count-when");
		assertThat(Markdown.slug("1. Trust only your own proxies")).isEqualTo("1-trust-only-your-own-proxies");
		assertThat(Markdown.slug("Spring Cloud Gateway: the `RateLimit` filter against the gateway's `RedisRateLimiter`"))
			.isEqualTo("spring-cloud-gateway-the-ratelimit-filter-against-the-gateways-redisratelimiter");
	}

}
