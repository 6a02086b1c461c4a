package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.ClientIp;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts every {@code yaml} block of {@code docs/abusive-clients.md}, so that the guide's recipes stay valid
 * configurations (an unknown property, a bad key or value fails start-up).
 */
class AbusiveClientsGuideTests {

	private static final Path GUIDE = Path.of("..", "docs", "abusive-clients.md");

	private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

	private static final Pattern RULE_NAME = Pattern.compile("^    ([a-z][a-z0-9-]*):", Pattern.MULTILINE);

	static List<String> recipes() throws IOException {
		Matcher blocks = YAML_BLOCK.matcher(Files.readString(GUIDE, StandardCharsets.UTF_8));
		List<String> recipes = new ArrayList<>();
		while (blocks.find()) {
			recipes.add(blocks.group(1));
		}
		assertThat(recipes).hasSizeGreaterThanOrEqualTo(6);
		return recipes;
	}

	@ParameterizedTest
	@MethodSource("recipes")
	void everyRecipeStartsWithTheRulesItNames(String yaml) throws IOException {
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("recipe",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
		List<String> names = new ArrayList<>();
		Matcher rule = RULE_NAME.matcher(yaml.substring(yaml.indexOf("  rules:")));
		while (rule.find()) {
			names.add(rule.group(1));
		}
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitServletAutoConfiguration.class, RateLimitAopAutoConfiguration.class,
					AopAutoConfiguration.class))
			.withInitializer((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RateLimitRules.class).all()).extracting(RateLimitRule::name)
					.containsExactlyElementsOf(names);
				assertThat(context).hasSingleBean(ClientIp.class);
			});
	}

}
