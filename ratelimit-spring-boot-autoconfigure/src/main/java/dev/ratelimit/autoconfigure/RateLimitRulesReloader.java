package dev.ratelimit.autoconfigure;

import java.util.Set;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.rule.RateLimitRules;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Re-binds and re-compiles the rules when the environment changes at runtime. An invalid change is refused with an
 * ERROR log and the previous rules keep working; limit state lives under rule names, so unchanged rules keep theirs.
 */
public class RateLimitRulesReloader {

	private static final Log logger = LogFactory.getLog(RateLimitRulesReloader.class);

	private final ConfigurableEnvironment environment;

	private final RuleCompiler compiler;

	private final RateLimitRules rules;

	public RateLimitRulesReloader(ConfigurableEnvironment environment, RuleCompiler compiler, RateLimitRules rules) {
		this.environment = environment;
		this.compiler = compiler;
		this.rules = rules;
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
