package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Set;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.rule.RateLimitRules;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Re-binds and re-compiles the rules when the environment changes at runtime, applying the
 * {@link RateLimitRulesCustomizer rules customizers} to the new definitions as at start-up. An invalid change is
 * refused with an ERROR log and the previous rules keep working; limit state lives under rule names, so unchanged
 * rules keep theirs.
 */
public class RateLimitRulesReloader {

	private static final Log logger = LogFactory.getLog(RateLimitRulesReloader.class);

	private final ConfigurableEnvironment environment;

	private final RuleCompiler compiler;

	private final RateLimitRules rules;

	private final List<RateLimitRulesCustomizer> customizers;

	public RateLimitRulesReloader(ConfigurableEnvironment environment, RuleCompiler compiler, RateLimitRules rules) {
		this(environment, compiler, rules, List.of());
	}

	/**
	 * @param environment the environment to bind from
	 * @param compiler the rule compiler
	 * @param rules the rules to replace
	 * @param customizers applied, in this order, to the definitions of every reload
	 */
	public RateLimitRulesReloader(ConfigurableEnvironment environment, RuleCompiler compiler, RateLimitRules rules,
			List<RateLimitRulesCustomizer> customizers) {
		this.environment = environment;
		this.compiler = compiler;
		this.rules = rules;
		this.customizers = List.copyOf(customizers);
	}

	/**
	 * Reloads the rules if any changed key is a {@code ratelimit.*} property.
	 * @param changedKeys the changed property names
	 * @return whether the rules were replaced
	 */
	public boolean reload(Set<String> changedKeys) {
		if (changedKeys.stream().noneMatch((key) -> key.startsWith("ratelimit."))) {
			return false;
		}
		try {
			RateLimitPropertyNames.checkKnown(this.environment);
			RateLimitProperties properties = Binder.get(this.environment)
				.bindOrCreate("ratelimit", Bindable.of(RateLimitProperties.class));
			this.customizers.forEach((customizer) -> customizer.customize(properties.getRules()));
			this.rules.replaceConfigured(this.compiler.compile(properties).all());
			logger.info("Reloaded rate limit rules: " + this.rules.all().stream().map((rule) -> rule.name()).toList());
			return true;
		}
		catch (InvalidRateLimitConfigurationException ex) {
			logger.error("Refused a rate limit configuration change, the previous rules stay in effect: "
					+ ex.getMessage());
		}
		catch (RuntimeException ex) {
			logger.error("Refused a rate limit configuration change, the previous rules stay in effect", ex);
		}
		return false;
	}

}
