package dev.ratelimit.key;

import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Keeps what key, tier-key, zone-key and cost expressions call reflectively in a native image: SpEL reads
 * {@link RequestExpressions.Root#getRequest() request} and invokes the {@link RateLimitRequest} methods an
 * expression names ({@code getHeader}, {@code getParameter}, {@code clientIp}, ...) on the root object and on each web
 * stack's request view. Registered in {@code META-INF/spring/aot.factories}.
 */
public class RequestExpressionsRuntimeHints implements RuntimeHintsRegistrar {

	/** The request views of the web stacks, named so that neither stack's classes need be present. */
	static final String[] REQUEST_VIEWS = { "dev.ratelimit.web.ServletRateLimitRequest",
			"dev.ratelimit.web.reactive.ServerRateLimitRequest" };

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(RequestExpressions.Root.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.reflection().registerType(RateLimitRequest.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		for (String view : REQUEST_VIEWS) {
			hints.reflection().registerType(TypeReference.of(view), MemberCategory.INVOKE_PUBLIC_METHODS);
		}
	}

}
