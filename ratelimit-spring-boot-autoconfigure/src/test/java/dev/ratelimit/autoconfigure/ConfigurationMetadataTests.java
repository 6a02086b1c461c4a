package dev.ratelimit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata an IDE completes from (generated from {@link RateLimitProperties}, plus
 * {@code additional-spring-configuration-metadata.json} for what the processor cannot see: the fields of each rule and
 * region, which are map values) names every property that binds, with a description, and nothing that does not bind.
 */
class ConfigurationMetadataTests {

	@Test
	void everyBoundPropertyIsInTheMetadataWithADescription() throws Exception {
		Set<String> bound = new TreeSet<>();
		collect("ratelimit", RateLimitProperties.class, bound);
		JsonNode metadata = metadata();
		Set<String> described = new TreeSet<>();
		Set<String> withoutDescription = new TreeSet<>();
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asString();
			described.add(name);
			if (!property.has("description") || property.get("description").asString().isBlank()) {
				withoutDescription.add(name);
			}
		}
		assertThat(described).as("properties in the metadata").containsAll(bound);
		assertThat(bound).as("bound properties").containsAll(described.stream()
			// the maps themselves are listed too; the endpoint's own properties are Spring Boot's; the replication
			// interval is a duration written under the map of regions (RateLimitProperties.Region.valueOf)
			.filter((name) -> name.startsWith("ratelimit.") && !name.equals("ratelimit.rules")
					&& !name.equals("ratelimit.regions") && !name.equals("ratelimit.stores")
					&& !name.equals("ratelimit.regions.replication-interval"))
			.toList());
		assertThat(withoutDescription).as("properties without a description").isEmpty();
	}

	private static JsonNode metadata() throws Exception {
		try (InputStream in = ConfigurationMetadataTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			return JsonMapper.builder().build().readTree(in);
		}
	}

	/** The names of the leaf properties of a binding class, maps of beans with {@code *} for the key. */
	private static void collect(String prefix, Class<?> type, Set<String> names) {
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getName().equals("class") || descriptor.getReadMethod() == null) {
				continue;
			}
			String name = prefix + "." + kebab(descriptor.getName());
			Type generic = descriptor.getReadMethod().getGenericReturnType();
			Class<?> raw = descriptor.getPropertyType();
			if (Map.class.isAssignableFrom(raw) && generic instanceof ParameterizedType map
					&& map.getActualTypeArguments()[1] instanceof Class<?> value && isBean(value)) {
				collect(name + ".*", value, names);
			}
			else if (isBean(raw)) {
				collect(name, raw, names);
			}
			else if (descriptor.getWriteMethod() != null || Map.class.isAssignableFrom(raw)
					|| Collection.class.isAssignableFrom(raw)) {
				names.add(name);
			}
		}
	}

	private static boolean isBean(Class<?> type) {
		return type.getEnclosingClass() == RateLimitProperties.class && !type.isEnum();
	}

	private static String kebab(String name) {
		return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
	}

}
