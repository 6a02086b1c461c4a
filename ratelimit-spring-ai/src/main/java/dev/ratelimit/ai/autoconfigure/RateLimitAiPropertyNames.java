package dev.ratelimit.ai.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import dev.ratelimit.InvalidRateLimitConfigurationException;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Finds {@code ratelimit.ai.*} properties that bind to nothing (such as {@code ratelimit.ai.rules}), which the
 * binder would silently ignore: the core's check of {@code ratelimit.*} names leaves this group to this module. As
 * there, the operating system's environment and the JVM's system properties are not checked.
 */
final class RateLimitAiPropertyNames {

	private static final ConfigurationPropertyName GROUP = ConfigurationPropertyName.of("ratelimit.ai");

	private static final Set<String> UNCHECKED_SOURCES = Set.of(
			StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
			StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);

	/** The names that bind, derived from {@link RateLimitAiProperties}, dashed. */
	static final List<String> KNOWN = Arrays.stream(BeanUtils.getPropertyDescriptors(RateLimitAiProperties.class))
		.filter((descriptor) -> descriptor.getWriteMethod() != null)
		.map(PropertyDescriptor::getName)
		.map((name) -> name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase())
		.sorted()
		.toList();

	private RateLimitAiPropertyNames() {
	}

	/**
	 * Fails on the first {@code ratelimit.ai.*} property that binds to nothing.
	 * @param environment the environment
	 * @throws InvalidRateLimitConfigurationException naming the property and the valid names
	 */
	static void checkKnown(Environment environment) {
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable
					&& !(source.getUnderlyingSource() instanceof PropertySource<?> property
							&& UNCHECKED_SOURCES.contains(property.getName()))) {
				iterable.filter(GROUP::isAncestorOf).stream().forEach(RateLimitAiPropertyNames::check);
			}
		}
	}

	private static void check(ConfigurationPropertyName name) {
		String element = name.getElement(GROUP.getNumberOfElements(), Form.DASHED);
		if (!KNOWN.contains(element) || name.getNumberOfElements() > GROUP.getNumberOfElements() + 1) {
			throw new InvalidRateLimitConfigurationException(name.toString(), "there is no such rate limit property",
					"Use one of " + KNOWN + " under 'ratelimit.ai' (see docs/llm-tokens.md)");
		}
	}

}
