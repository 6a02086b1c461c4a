package dev.ratelimit.key;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.util.StringUtils;

/**
 * The built-in key resolvers and the parser of key specifications such as {@code user+endpoint}.
 * <ul>
 * <li>{@code ip}: {@link RateLimitRequest#clientIp()}, the client's address masked to its network
 * ({@code ratelimit.client-ip.*}: IPv6 by its /64 unless configured otherwise). Proxies are trusted only as the
 * application configures them ({@code server.forward-headers-strategy}); {@code X-Forwarded-For} is never read
 * here.</li>
 * <li>{@code user}: the authenticated principal's name; anonymous requests fall back to {@code ip}.</li>
 * <li>{@code api-key}: the API key header ({@code ratelimit.api-key-header}); without one, {@code ip}.</li>
 * <li>{@code header:<Name>}: that header's value; without one, {@code ip}.</li>
 * <li>{@code global}: one quota shared by every client.</li>
 * <li>{@code endpoint}: method and route template of the handler, e.g. {@code GET /api/items/{id}}
 * ({@link RateLimitRequest#route()}); every request no handler maps is {@value #UNMAPPED}.</li>
 * <li>{@code path}: method and concrete path, e.g. {@code GET /api/items/7}.</li>
 * <li>{@code #{...}}: a SpEL template over the request; an empty result falls back to {@code ip}.</li>
 * <li>{@code @beanName}: a {@link KeyResolver} bean; a {@code null} result means the rule does not apply.</li>
 * </ul>
 * Parts joined with {@code +} form a composite subject, the parts' subjects joined with {@code |}. Only a {@code +}
 * outside every {@code #{...}} joins parts: one inside a template (also inside nested braces or a string literal)
 * belongs to the expression, and a part with a template (such as {@code tenant-#{...}}) is a template as a whole.
 * Falling back to the client IP when a part is missing means omitting a header never escapes a limit.
 */
public final class KeyResolvers {

	/** The subject of {@code global} keys. */
	public static final String GLOBAL = "global";

	/** The endpoint of every request that no handler maps. */
	public static final String UNMAPPED = "UNMAPPED";

	/** The methods an endpoint names; any other method is {@code OTHER}, so that clients cannot add endpoints. */
	private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	private KeyResolvers() {
	}

	/** Resolves the client IP, masked to the client's network ({@link RateLimitRequest#clientIp()}). */
	public static KeyResolver ip() {
		return RateLimitRequest::clientIp;
	}

	/** Resolves the authenticated user's name, or the IP for anonymous requests. */
	public static KeyResolver user() {
		return (request) -> {
			Principal principal = request.getUserPrincipal();
			String name = (principal != null) ? principal.getName() : null;
			return StringUtils.hasLength(name) ? name : request.clientIp();
		};
	}

	/** Resolves a header's value, or the IP when the request has none. */
	public static KeyResolver header(String name) {
		return (request) -> {
			String value = request.getHeader(name);
			return StringUtils.hasLength(value) ? value : request.clientIp();
		};
	}

	/** Resolves the same subject for every request. */
	public static KeyResolver global() {
		return (request) -> GLOBAL;
	}

	/**
	 * Resolves the endpoint that serves the request: its method and the route template of its handler, e.g.
	 * {@code GET /api/reports/{user}} for {@code GET /api/reports/alice}, or {@value #UNMAPPED} when no handler maps
	 * it. Subjects are as many as the application's routes (times the standard methods, any other being
	 * {@code OTHER}), whatever clients send.
	 */
	public static KeyResolver endpoint() {
		return (request) -> {
			String route = request.route();
			if (route == null) {
				return UNMAPPED;
			}
			String method = request.getMethod();
			return (METHODS.contains(method) ? method : "OTHER") + ' ' + route;
		};
	}

	/**
	 * Resolves the request's method and concrete path within the application, e.g. {@code GET /api/items/7}: one
	 * subject per path a client asks for.
	 */
	public static KeyResolver path() {
		return (request) -> request.getMethod() + ' ' + request.path();
	}

	/** Resolves a SpEL template, or the IP when it yields nothing; what it throws is left to the rule to report. */
	public static KeyResolver expression(Expression expression, RequestExpressions expressions) {
		return (request) -> {
			Object value = expressions.evaluate(expression, request);
			String subject = (value != null) ? value.toString() : null;
			return StringUtils.hasLength(subject) ? subject : request.clientIp();
		};
	}

	/**
	 * Parses a key specification.
	 * @param spec the specification, e.g. {@code user+endpoint}
	 * @param apiKeyHeader the API key header name
	 * @param expressions the SpEL support
	 * @param beans looks up {@link KeyResolver} beans by name; throws when there is none
	 * @return the resolver
	 * @throws IllegalArgumentException with a message that says what is wrong
	 * @throws org.springframework.expression.ParseException when a template part is not valid SpEL
	 */
	public static KeyResolver parse(String spec, String apiKeyHeader, RequestExpressions expressions,
			Function<String, KeyResolver> beans) {
		if (spec.isBlank()) {
			throw new IllegalArgumentException("the key is empty");
		}
		List<KeyResolver> parts = new ArrayList<>();
		for (String part : KeySpecification.split(spec)) {
			parts.add(single(part, apiKeyHeader, expressions, beans));
		}
		return (parts.size() == 1) ? parts.get(0) : composite(parts);
	}

	/**
	 * Returns whether a key specification has a part of a built-in type, e.g. {@code user} in {@code user+endpoint}.
	 * @param spec the specification
	 * @param type the built-in type, e.g. {@code user}
	 * @return whether one of its parts is that type, ignoring case
	 */
	public static boolean hasPart(String spec, String type) {
		return KeySpecification.split(spec).stream().anyMatch(type::equalsIgnoreCase);
	}

	/**
	 * Returns whether the subject of a key specification can be the client IP: with an {@code ip} part, or a part
	 * that falls back to it ({@code user}, {@code api-key}, {@code header:}, a SpEL template) or may read it (a
	 * {@code @bean}). Only keys made of {@code global}, {@code endpoint} and {@code path} never are.
	 * @param spec the specification
	 * @return whether a client that can choose its IP can choose its subject
	 */
	public static boolean mayUseClientIp(String spec) {
		return !KeySpecification.split(spec).stream().allMatch((part) -> part.equalsIgnoreCase("global")
				|| part.equalsIgnoreCase("endpoint") || part.equalsIgnoreCase("path"));
	}

	private static KeyResolver single(String part, String apiKeyHeader, RequestExpressions expressions,
			Function<String, KeyResolver> beans) {
		if (RequestExpressions.isTemplate(part)) {
			return expression(expressions.parse(part), expressions);
		}
		if (part.startsWith("@") && part.length() > 1) {
			return beans.apply(part.substring(1));
		}
		String lower = part.toLowerCase(Locale.ROOT);
		if (lower.startsWith("header:")) {
			String name = part.substring("header:".length()).trim();
			if (name.isEmpty()) {
				throw new IllegalArgumentException("'header:' needs a header name, e.g. header:X-Tenant");
			}
			return header(name);
		}
		return switch (lower) {
			case "ip" -> ip();
			case "user" -> user();
			case "api-key" -> header(apiKeyHeader);
			case "global" -> global();
			case "endpoint" -> endpoint();
			case "path" -> path();
			default -> throw new IllegalArgumentException("unknown key type '" + part + "'");
		};
	}

	private static KeyResolver composite(List<KeyResolver> parts) {
		KeyResolver[] resolvers = parts.toArray(KeyResolver[]::new);
		return (request) -> {
			StringBuilder subject = new StringBuilder();
			for (int i = 0; i < resolvers.length; i++) {
				@Nullable String part = resolvers[i].resolve(request);
				if (part == null) {
					return null;
				}
				subject.append((i > 0) ? "|" : "").append(part);
			}
			return subject.toString();
		};
	}

}
