package dev.ratelimit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.InvalidRateLimitConfigurationException;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.ClassUtils;

/**
 * Finds {@code ratelimit.*} properties that bind to nothing, such as {@code on-store-faliure}, which Spring Boot's
 * binder would silently ignore. The valid names are derived from {@link RateLimitProperties} itself, so they cannot
 * drift from what binds. The operating system's environment and the JVM's system properties are not checked: their
 * names cannot be told apart from other tools' settings, and environment variables lose the dashes.
 */
final class RateLimitPropertyNames {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("ratelimit");

	private static final Set<String> UNCHECKED_SOURCES = Set.of(
			StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
			StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);

	/**
	 * Groups under {@code ratelimit} that an optional module binds and checks itself: the group, the class that is
	 * present with the module, and the module's artifact, named when it is missing.
	 */
	private static final Map<String, List<String>> MODULE_GROUPS = Map.of("ai",
			List.of("dev.ratelimit.ai.autoconfigure.RateLimitAiProperties", "ratelimit-spring-ai"));

	private RateLimitPropertyNames() {
	}

	/**
	 * Fails on the first {@code ratelimit.*} property that binds to nothing.
	 * @param environment the environment
	 * @throws InvalidRateLimitConfigurationException naming the property and the closest valid name
	 */
	static void checkKnown(Environment environment) {
		Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
		for (ConfigurationPropertySource source : sources) {
			if (source instanceof IterableConfigurationPropertySource iterable
					&& !(source.getUnderlyingSource() instanceof PropertySource<?> property
							&& UNCHECKED_SOURCES.contains(property.getName()))) {
				iterable.filter(ROOT::isAncestorOf).stream().forEach((name) -> check(name, iterable, sources));
			}
		}
	}

	private static void check(ConfigurationPropertyName name, ConfigurationPropertySource source,
			Iterable<ConfigurationPropertySource> sources) {
		ResolvableType type = ResolvableType.forClass(RateLimitProperties.class);
		StringBuilder path = new StringBuilder(ROOT.toString());
		List<String> module = (name.getNumberOfElements() > ROOT.getNumberOfElements())
				? MODULE_GROUPS.get(name.getElement(ROOT.getNumberOfElements(), Form.DASHED)) : null;
		if (module != null) {
			if (ClassUtils.isPresent(module.get(0), RateLimitPropertyNames.class.getClassLoader())) {
				return;
			}
			throw new InvalidRateLimitConfigurationException(name.toString(), "it belongs to the optional module "
					+ module.get(1) + ", which is not on the class path", "Add the dependency dev.ratelimit:"
							+ module.get(1) + " (see docs/configuration.md)");
		}
		for (int i = ROOT.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
			String element = name.getElement(i, Form.DASHED);
			Node node = Node.of(type);
			if (node.kind == Kind.BEAN && acceptsValue(type.toClass())) {
				checkNotAlsoAValue(name.chop(i), sources);
			}
			if (node.kind == Kind.LEAF) {
				if (!name.isNumericIndex(i) || !isCollection(type)) {
					throw unknown(name, element, source, path.toString(), List.of());
				}
				return;
			}
			if (node.kind == Kind.MAP) {
				type = type.asMap().getGeneric(1);
				path.append(name.isNumericIndex(i) ? "[" + element + "]" : "." + element);
				continue;
			}
			ResolvableType child = node.properties.get(name.getElement(i, Form.UNIFORM));
			if (child == null) {
				throw unknown(name, element, source, path.toString(), List.copyOf(node.dashed.values()));
			}
			path.append('.').append(node.dashed.get(name.getElement(i, Form.UNIFORM)));
			type = child;
		}
		if (Node.of(type).kind != Kind.LEAF && !acceptsValue(type.toClass())
				&& source.getConfigurationProperty(name) != null) {
			// a value where a group of properties belongs, e.g. ratelimit.rules.login=5
			throw new InvalidRateLimitConfigurationException(name.toString(), "it takes nested properties, not a value",
					"Set the properties under it, e.g. '" + path + "." + firstChild(type) + "' (see docs/configuration.md)");
		}
	}

	/**
	 * Returns whether a group of properties can also be given as one value, converted by its static
	 * {@code valueOf(String)} (e.g. {@code ratelimit.headers: ietf}).
	 */
	private static boolean acceptsValue(Class<?> type) {
		try {
			Method valueOf = type.getMethod("valueOf", String.class);
			return Modifier.isStatic(valueOf.getModifiers()) && valueOf.getReturnType() == type;
		}
		catch (NoSuchMethodException ex) {
			return false;
		}
	}

	/**
	 * Fails when a group that takes a value has both the value and nested properties: the binder would take the value
	 * and silently ignore the nested ones.
	 */
	private static void checkNotAlsoAValue(ConfigurationPropertyName group,
			Iterable<ConfigurationPropertySource> sources) {
		for (ConfigurationPropertySource any : sources) {
			if (any.getConfigurationProperty(group) != null) {
				throw new InvalidRateLimitConfigurationException(group.toString(),
						"it is set to a value and has nested properties too, which would then be ignored",
						"Set the value as a nested property instead ('ratelimit.headers: ietf' is short for"
								+ " 'ratelimit.headers.style: ietf') (see docs/configuration.md)");
			}
		}
	}

	private static String firstChild(ResolvableType type) {
		Node node = Node.of(type);
		return (node.kind == Kind.MAP) ? "<name>" : node.dashed.values().iterator().next();
	}

	private static InvalidRateLimitConfigurationException unknown(ConfigurationPropertyName name, String element,
			ConfigurationPropertySource source, String parent, List<String> candidates) {
		String closest = candidates.stream().min(Comparator.comparingInt((candidate) -> distance(candidate, element)))
			.filter((candidate) -> distance(candidate, element) <= Math.max(2, element.length() / 3))
			.orElse(null);
		String fix = (closest != null) ? "Did you mean '" + parent + "." + closest + "'?"
				: (candidates.isEmpty() ? "'" + parent + "' takes a value, not nested properties"
						: "Use one of " + candidates + " under '" + parent + "'");
		ConfigurationProperty property = source.getConfigurationProperty(name);
		Origin origin = (property != null) ? property.getOrigin() : null;
		return new InvalidRateLimitConfigurationException(name.toString(), "there is no such rate limit property"
				+ ((origin != null) ? " (set in " + origin + ")" : ""), fix + " (see docs/configuration.md)");
	}

	private static boolean isCollection(ResolvableType type) {
		return type.isArray() || Collection.class.isAssignableFrom(type.toClass());
	}

	/** Levenshtein distance. */
	static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	private enum Kind {

		LEAF, MAP, BEAN

	}

	/**
	 * What a type binds: a value, a map of any keys, or a bean with named properties.
	 *
	 * @param kind the kind
	 * @param properties the bean's property types by uniform name (lower case, no dashes)
	 * @param dashed the bean's property names in dashed form by uniform name
	 */
	private record Node(Kind kind, Map<String, ResolvableType> properties, Map<String, String> dashed) {

		static Node of(ResolvableType type) {
			Class<?> raw = type.toClass();
			if (Map.class.isAssignableFrom(raw)) {
				return new Node(Kind.MAP, Map.of(), Map.of());
			}
			if (isValue(raw) || isCollection(type)) {
				return new Node(Kind.LEAF, Map.of(), Map.of());
			}
			Map<String, ResolvableType> properties = new LinkedHashMap<>();
			Map<String, String> dashed = new LinkedHashMap<>();
			for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(raw)) {
				if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
					continue;
				}
				String uniform = descriptor.getName().toLowerCase(Locale.ROOT);
				properties.put(uniform, ResolvableType.forMethodReturnType(descriptor.getReadMethod()));
				dashed.put(uniform, dashedName(descriptor.getName()));
			}
			return new Node(Kind.BEAN, properties, dashed);
		}

		private static boolean isValue(Class<?> raw) {
			return raw.isPrimitive() || raw.isEnum() || raw.getName().startsWith("java.") || raw == Duration.class;
		}

		private static String dashedName(String camelCase) {
			StringBuilder dashed = new StringBuilder();
			for (char c : camelCase.toCharArray()) {
				if (Character.isUpperCase(c)) {
					dashed.append('-').append(Character.toLowerCase(c));
				}
				else {
					dashed.append(c);
				}
			}
			return dashed.toString();
		}

	}

}
