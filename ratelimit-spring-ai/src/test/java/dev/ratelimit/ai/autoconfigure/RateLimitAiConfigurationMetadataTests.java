package dev.ratelimit.ai.autoconfigure;

import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module's configuration metadata (generated from {@link RateLimitAiProperties}) names every
 * {@code ratelimit.ai.*} property that binds, each with a description, and nothing else.
 */
class RateLimitAiConfigurationMetadataTests {

	@Test
	void everyBoundPropertyIsInTheMetadataWithADescription() throws Exception {
		Set<String> described = new TreeSet<>();
		Set<String> withoutDescription = new TreeSet<>();
		for (JsonNode property : properties()) {
			String name = property.get("name").asString();
			if (name.startsWith("ratelimit.ai.")) {
				described.add(name);
				if (!property.has("description") || property.get("description").asString().isBlank()
						|| property.get("description").asString().matches("(The|A|An) .*")) {
					withoutDescription.add(name);
				}
			}
		}
		Set<String> bound = new TreeSet<>();
		RateLimitAiPropertyNames.KNOWN.forEach((name) -> bound.add("ratelimit.ai." + name));
		assertThat(described).isEqualTo(bound);
		assertThat(withoutDescription).as("without a description that starts with a verb").isEmpty();
	}

	/** The properties of every metadata file on the class path (Spring AI's jars have theirs). */
	private static List<JsonNode> properties() throws Exception {
		List<JsonNode> properties = new ArrayList<>();
		Enumeration<URL> files = RateLimitAiConfigurationMetadataTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json");
		for (URL file : Collections.list(files)) {
			try (InputStream in = file.openStream()) {
				JsonMapper.builder().build().readTree(in).get("properties").forEach(properties::add);
			}
		}
		return properties;
	}

}
