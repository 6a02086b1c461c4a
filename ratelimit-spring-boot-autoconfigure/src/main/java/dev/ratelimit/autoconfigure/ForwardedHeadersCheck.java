package dev.ratelimit.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import dev.ratelimit.key.KeyResolvers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Logs one WARN at start-up when rules may be keyed by the client IP while forwarded headers are believed from any
 * address: a client could then choose its IP, and so its quota, with {@code X-Forwarded-For}. The WARN names the
 * setting and the fix.
 */
final class ForwardedHeadersCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(ForwardedHeadersCheck.class);

	/** Documentation addresses (RFC 5737, RFC 3849): a setting that trusts them trusts any client. */
	private static final List<String> CLIENT_ADDRESSES = List.of("203.0.113.7", "2001:db8::7");

	/** An IPv4 or IPv6 literal, which {@link InetAddress#getByName} parses without a DNS lookup. */
	private static final Pattern LITERAL_ADDRESS = Pattern.compile("[0-9A-Fa-f.:]+");

	private static final String TOMCAT_REMOTE_IP_VALVE = "org.apache.catalina.valves.RemoteIpValve";

	private final Environment environment;

	private final RateLimitProperties properties;

	ForwardedHeadersCheck(Environment environment, RateLimitProperties properties) {
		this.environment = environment;
		this.properties = properties;
	}

	@Override
	public void afterSingletonsInstantiated() {
		String warning = warning(this.environment, this.properties);
		if (warning != null) {
			logger.warn(warning);
		}
	}

	static @Nullable String warning(Environment environment, RateLimitProperties properties) {
		List<String> rules = properties.getRules()
			.entrySet()
			.stream()
			// an adaptive-concurrency rule has no key: it limits the instance, whatever the client's address
			.filter((rule) -> rule.getValue().getAlgorithm() != RateLimitProperties.RuleAlgorithm.ADAPTIVE_CONCURRENCY
					&& KeyResolvers.mayUseClientIp(rule.getValue().getKey()))
			.map(Map.Entry::getKey)
			.toList();
		if (rules.isEmpty()) {
			return null;
		}
		String trust = trustsAnyClient(Binder.get(environment), environment);
		if (trust == null) {
			return null;
		}
		return "Rate limit rules " + rules + " use the client IP (key ip, or a key that falls back to it), but " + trust
				+ " See 'Client IPs behind proxies' in the rate limiter's configuration guide.";
	}

	private static @Nullable String trustsAnyClient(Binder binder, Environment environment) {
		String strategy = property(binder, "server.forward-headers-strategy");
		if ("framework".equalsIgnoreCase(strategy)) {
			return "server.forward-headers-strategy=framework makes Spring's ForwardedHeaderFilter take it from the"
					+ " X-Forwarded-For and Forwarded headers of every request, so a client can send any address and"
					+ " escape them. Use server.forward-headers-strategy=native (Tomcat believes the headers only from"
					+ " server.tomcat.remoteip.internal-proxies), or keep framework only behind a proxy that removes"
					+ " these headers from client requests.";
		}
		if (!tomcatRemoteIpValve(binder, environment, strategy)) {
			return null;
		}
		String internal = property(binder, "server.tomcat.remoteip.internal-proxies");
		if (matchesAnyClient(internal)) {
			return "server.tomcat.remoteip.internal-proxies='" + internal + "' believes X-Forwarded-For from every"
					+ " address, so a client can send any address and escape them. Set it to your proxies' addresses"
					+ " only (a regular expression or CIDR list such as 10.0.0.0/8), or remove it for Tomcat's default"
					+ " of private networks.";
		}
		String trusted = property(binder, "server.tomcat.remoteip.trusted-proxies");
		if (matchesAnyClient(trusted)) {
			return "server.tomcat.remoteip.trusted-proxies='" + trusted + "' trusts every address listed in"
					+ " X-Forwarded-For, so the left-most one, which the client wrote, becomes its IP. Set it to the"
					+ " addresses of the proxies that appear in the header only, or remove it.";
		}
		return null;
	}

	/** Whether Spring Boot installs Tomcat's RemoteIpValve, as its Tomcat customizer decides. */
	private static boolean tomcatRemoteIpValve(Binder binder, Environment environment, @Nullable String strategy) {
		if (!ClassUtils.isPresent(TOMCAT_REMOTE_IP_VALVE, ForwardedHeadersCheck.class.getClassLoader())) {
			return false;
		}
		if (StringUtils.hasText(property(binder, "server.tomcat.remoteip.remote-ip-header"))
				|| StringUtils.hasText(property(binder, "server.tomcat.remoteip.protocol-header"))) {
			return true;
		}
		if (strategy == null) {
			CloudPlatform platform = CloudPlatform.getActive(environment);
			return platform != null && platform.isUsingForwardHeaders();
		}
		return "native".equalsIgnoreCase(strategy);
	}

	/** Whether a proxies setting of Tomcat (a CIDR list when it has a '/', else a regular expression) matches any client. */
	private static boolean matchesAnyClient(@Nullable String proxies) {
		if (!StringUtils.hasLength(proxies)) {
			return false;
		}
		for (String address : CLIENT_ADDRESSES) {
			if ((proxies.indexOf('/') > 0) ? cidrsContain(proxies, address) : regexMatches(proxies, address)) {
				return true;
			}
		}
		return false;
	}

	private static boolean regexMatches(String regex, String address) {
		try {
			return Pattern.compile(regex).matcher(address).matches();
		}
		catch (PatternSyntaxException ex) {
			return false;
		}
	}

	private static boolean cidrsContain(String cidrs, String address) {
		for (String cidr : StringUtils.commaDelimitedListToStringArray(cidrs)) {
			String[] parts = cidr.trim().split("/", 2);
			if (!LITERAL_ADDRESS.matcher(parts[0]).matches()) {
				continue;
			}
			try {
				byte[] network = InetAddress.getByName(parts[0]).getAddress();
				byte[] candidate = InetAddress.getByName(address).getAddress();
				int bits = (parts.length == 2) ? Integer.parseInt(parts[1].trim()) : network.length * 8;
				if (network.length == candidate.length && samePrefix(network, candidate, bits)) {
					return true;
				}
			}
			catch (UnknownHostException | NumberFormatException ex) {
				// an entry Tomcat refuses
			}
		}
		return false;
	}

	private static boolean samePrefix(byte[] network, byte[] candidate, int bits) {
		for (int i = 0; i < bits && i < network.length * 8; i++) {
			int mask = 0x80 >>> (i % 8);
			if ((network[i / 8] & mask) != (candidate[i / 8] & mask)) {
				return false;
			}
		}
		return true;
	}

	private static @Nullable String property(Binder binder, String name) {
		return binder.bind(name, String.class).orElse(null);
	}

}
