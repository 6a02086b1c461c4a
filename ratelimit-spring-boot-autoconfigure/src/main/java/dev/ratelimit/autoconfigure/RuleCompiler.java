package dev.ratelimit.autoconfigure;

import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.DenialStatus;
import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.RateLimitPolicy.Field;
import dev.ratelimit.adaptive.AdaptiveConcurrencyRule;
import dev.ratelimit.adaptive.AdaptiveSettings;
import dev.ratelimit.autoconfigure.RateLimitProperties.RuleAlgorithm;
import dev.ratelimit.key.KeyResolvers;
import dev.ratelimit.key.RequestExpressions;
import dev.ratelimit.redis.RedisKeys;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.rule.CostResolver;
import dev.ratelimit.rule.CountWhen;
import dev.ratelimit.rule.SettleResponse;
import dev.ratelimit.rule.SettleSource;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.Periods;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RequestMatch;
import dev.ratelimit.rule.ResolutionFailures;
import dev.ratelimit.rule.RuleOverrideRepository;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.rule.RuleWaiting;
import dev.ratelimit.sync.SyncSettings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.http.HttpHeaders;
import org.springframework.util.ClassUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Converts {@link RateLimitProperties} into immutable {@link RateLimitRules} and {@link AdaptiveConcurrencyRule}s,
 * once. Every invalid value fails with an {@link InvalidRateLimitRuleException} naming the property and the fix.
 */
public final class RuleCompiler {

	/** The Maven coordinates of the library that adaptive-concurrency rules need. */
	static final String CONCURRENCY_LIMITS_DEPENDENCY = "com.netflix.concurrency-limits:concurrency-limits-core";

	private static final String CONCURRENCY_LIMITS_CLASS = "com.netflix.concurrency.limits.limiter.SimpleLimiter";

	private static final Log logger = LogFactory.getLog(RuleCompiler.class);

	private final RequestExpressions expressions;

	private final Function<String, KeyResolver> beans;

	private final ResolutionFailures resolutionFailures;

	private final @Nullable String actuatorBasePath;

	/**
	 * Creates a compiler whose rules only log a key, tier key or cost that cannot be resolved.
	 * @param expressions the SpEL support
	 * @param beans looks up {@link KeyResolver} beans by name; throws {@link IllegalArgumentException} when missing
	 */
	public RuleCompiler(RequestExpressions expressions, Function<String, KeyResolver> beans) {
		this(expressions, beans, ResolutionFailures.logOnly());
	}

	/**
	 * @param expressions the SpEL support
	 * @param beans looks up {@link KeyResolver} beans by name; throws {@link IllegalArgumentException} when missing
	 * @param resolutionFailures told of every key, tier key or cost of the compiled rules that cannot be resolved
	 */
	public RuleCompiler(RequestExpressions expressions, Function<String, KeyResolver> beans,
			ResolutionFailures resolutionFailures) {
		this(expressions, beans, resolutionFailures, null);
	}

	/**
	 * @param expressions the SpEL support
	 * @param beans looks up {@link KeyResolver} beans by name; throws {@link IllegalArgumentException} when missing
	 * @param resolutionFailures told of every key, tier key or cost of the compiled rules that cannot be resolved
	 * @param actuatorBasePath the actuator's base path (e.g. {@code /actuator}), left out of every rule that names no
	 * paths, or {@code null} to leave nothing out
	 */
	public RuleCompiler(RequestExpressions expressions, Function<String, KeyResolver> beans,
			ResolutionFailures resolutionFailures, @Nullable String actuatorBasePath) {
		this.expressions = expressions;
		this.beans = beans;
		this.resolutionFailures = resolutionFailures;
		this.actuatorBasePath = (actuatorBasePath != null && !actuatorBasePath.isBlank()
				&& !actuatorBasePath.trim().equals("/")) ? actuatorBasePath.trim().replaceAll("/+$", "") : null;
	}

	/** Compiles every rate rule (every rule but the {@code adaptive-concurrency} ones). */
	public RateLimitRules compile(RateLimitProperties properties) {
		try {
			new RedisKeys(properties.getKeyPrefix());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitConfigurationException("ratelimit.key-prefix", ex.getMessage(),
					"Use a short prefix such as 'rl'");
		}
		int maxExceptionsPerRule = properties.getExceptions().getMaxPerRule();
		if (maxExceptionsPerRule < 1) {
			throw new InvalidRateLimitConfigurationException("ratelimit.exceptions.max-per-rule",
					"must be at least 1 but was " + maxExceptionsPerRule,
					"Set it to the most exceptions a rule may have (default 1000)");
		}
		List<RateLimitRule> rules = new ArrayList<>();
		boolean shared = properties.getRules()
			.values()
			.stream()
			.anyMatch((rule) -> rule.getScope() == RateLimitProperties.Scope.SHARE);
		double regionShare = shared ? regionShare(properties) : 1;
		if (properties.getRules().values().stream().anyMatch((rule) -> rule.getScope() == RateLimitProperties.Scope.GLOBAL)) {
			checkPeers(properties);
		}
		properties.getRules().forEach((name, rule) -> {
			if (rule.getAlgorithm() == RuleAlgorithm.ADAPTIVE_CONCURRENCY) {
				return;
			}
			RateLimitRule compiled = compile(name, rule, properties.getApiKeyHeader(), regionShare,
					maxExceptionsPerRule);
			rules.add(compiled);
			if (logger.isInfoEnabled()) {
				logger.info(describe(compiled, rule));
			}
		});
		return new RateLimitRules(rules, this.resolutionFailures);
	}

	/**
	 * Compiles every {@code adaptive-concurrency} rule.
	 * @param properties the properties
	 * @param classLoader where to look for the concurrency-limits library
	 * @return the rules, in configuration order
	 * @throws InvalidRateLimitRuleException for an invalid rule, or when there is one and the library is missing
	 */
	public List<AdaptiveConcurrencyRule> compileAdaptive(RateLimitProperties properties,
			@Nullable ClassLoader classLoader) {
		List<AdaptiveConcurrencyRule> rules = new ArrayList<>();
		properties.getRules().forEach((name, rule) -> {
			if (rule.getAlgorithm() != RuleAlgorithm.ADAPTIVE_CONCURRENCY) {
				return;
			}
			if (!ClassUtils.isPresent(CONCURRENCY_LIMITS_CLASS, classLoader)) {
				throw new InvalidRateLimitRuleException("ratelimit.rules." + name + ".algorithm",
						"adaptive-concurrency needs Netflix's concurrency-limits library, which is not on the class path",
						"Add the dependency " + CONCURRENCY_LIMITS_DEPENDENCY + " (the ratelimit starter brings it),"
								+ " or use another algorithm");
			}
			AdaptiveConcurrencyRule compiled = compileAdaptive(name, rule);
			rules.add(compiled);
			if (logger.isInfoEnabled()) {
				logger.info(describe(compiled));
			}
		});
		return rules;
	}

	/** Compiles one rate rule. */
	public RateLimitRule compile(String name, RateLimitProperties.Rule rule, String apiKeyHeader) {
		return compile(name, rule, apiKeyHeader, 1, RuleOverrideRepository.DEFAULT_MAX_EXCEPTIONS_PER_RULE);
	}

	/**
	 * Returns this region's part of the limits of {@code scope: share} rules: its {@code share}, or an equal part of
	 * what the regions with a share leave.
	 */
	static double regionShare(RateLimitProperties properties) {
		String region = ownRegion(properties, "share");
		Map<String, RateLimitProperties.Region> regions = properties.deploymentRegions();
		double set = 0;
		int unset = 0;
		for (Map.Entry<String, RateLimitProperties.Region> entry : regions.entrySet()) {
			Double share = entry.getValue().getShare();
			if (share == null) {
				unset++;
			}
			else if (!(share > 0 && share <= 1)) {
				throw new InvalidRateLimitConfigurationException("ratelimit.regions." + entry.getKey() + ".share",
						"must be in (0, 1] but was " + share, "Set it to the region's part of a shared limit, e.g. 0.5");
			}
			else {
				set += share;
			}
		}
		if (set > 1 + 1e-9) {
			throw new InvalidRateLimitConfigurationException("ratelimit.regions", "the shares add up to " + set
					+ ", more than the whole limit", "Make the shares of ratelimit.regions.<name>.share add up to at"
					+ " most 1");
		}
		Double own = regions.get(region).getShare();
		return (own != null) ? own : (1 - set) / unset;
	}

	/** Returns this instance's region, checked to be among the deployment's regions. */
	private static String ownRegion(RateLimitProperties properties, String scope) {
		String region = properties.getRegion();
		Map<String, RateLimitProperties.Region> regions = properties.deploymentRegions();
		if (region == null || region.isBlank()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.region", "a rule has scope: " + scope
					+ " but this instance's region is not set", "Set ratelimit.region to this instance's region, one of"
					+ " ratelimit.regions");
		}
		if (!regions.containsKey(region)) {
			throw new InvalidRateLimitConfigurationException("ratelimit.regions", "region '" + region + "' (ratelimit.region)"
					+ " is not among " + regions.keySet(), "List every region of the deployment under ratelimit.regions,"
					+ " e.g. ratelimit.regions." + region + ".share=0.5");
		}
		return region;
	}

	/**
	 * Checks what {@code scope: global} rules need: this instance's region among the regions, region names that can
	 * name an entry, and every other region's Redis.
	 */
	static void checkPeers(RateLimitProperties properties) {
		String region = ownRegion(properties, "global");
		Map<String, RateLimitProperties.Region> regions = properties.deploymentRegions();
		if (regions.size() < 2) {
			throw new InvalidRateLimitConfigurationException("ratelimit.regions", "a rule has scope: global but only"
					+ " region '" + region + "' is listed", "List every region of the deployment under ratelimit.regions,"
					+ " each other one with the url of its Redis");
		}
		regions.forEach((name, entry) -> {
			if (!name.matches("[A-Za-z0-9_-]{1,32}")) {
				throw new InvalidRateLimitConfigurationException("ratelimit.regions." + name, "a region name names its"
						+ " entries in Redis and must be 1 to 32 letters, digits, '-' or '_'", "Rename the region");
			}
			boolean located = (entry.getUrl() != null && !entry.getUrl().isBlank())
					|| (entry.getHost() != null && !entry.getHost().isBlank());
			if (!name.equals(region) && !located) {
				throw new InvalidRateLimitConfigurationException("ratelimit.regions." + name + ".url", "a rule has scope:"
						+ " global, and this region replicates to region '" + name + "' but does not know its Redis",
						"Set ratelimit.regions." + name + ".url to its Redis, e.g. redis://redis." + name + ".internal:6379");
			}
		});
	}

	private RateLimitRule compile(String name, RateLimitProperties.Rule rule, String apiKeyHeader, double regionShare,
			int maxExceptionsPerRule) {
		String prefix = "ratelimit.rules." + name;
		checkName(prefix, name);
		CalendarPeriod calendar = calendar(prefix, rule);
		Algorithm algorithm = (calendar != null) ? Algorithm.FIXED_WINDOW : rule.getAlgorithm().rateAlgorithm();
		if (algorithm == null) {
			throw new InvalidRateLimitRuleException(prefix + ".algorithm", "adaptive-concurrency is not a rate",
					"Compile it with compileAdaptive");
		}
		if (isSet(rule.getAdaptive())) {
			throw new InvalidRateLimitRuleException(prefix + ".adaptive",
					"adaptive settings apply to algorithm adaptive-concurrency only",
					"Remove them, or set algorithm to adaptive-concurrency");
		}
		if (algorithm == Algorithm.CONCURRENCY && rule.getCountWhen().hasConditions()) {
			throw new InvalidRateLimitRuleException(prefix + ".count-when",
					"concurrency counts requests in flight, which are released when they end, not refunded",
					"Remove count-when, or use a rate algorithm such as sliding-window-log");
		}
		if (algorithm == Algorithm.DISTINCT && rule.getCountWhen().hasConditions()) {
			throw new InvalidRateLimitRuleException(prefix + ".count-when",
					"distinct counts each value once per window, and a value cannot be taken back at a request's end"
							+ " (another request may have presented it meanwhile; a HyperLogLog cannot forget)",
					"Remove count-when, or use a rate algorithm such as sliding-window-log");
		}
		if (algorithm == Algorithm.CONCURRENCY && rule.getPeriod() != null) {
			throw new InvalidRateLimitRuleException(prefix + ".period", "concurrency has no period",
					"Remove it; lease-timeout bounds how long a request holds its slot");
		}
		Duration period = (calendar != null) ? calendar.nominalLength()
				: (algorithm == Algorithm.CONCURRENCY) ? rule.getLeaseTimeout() : rule.getPeriod();
		if (period == null) {
			Field missing = (algorithm == Algorithm.CONCURRENCY) ? Field.LEASE_TIMEOUT : Field.PERIOD;
			throw new InvalidRateLimitRuleException(prefix + "." + missing.propertyName(),
					"the " + missing.propertyName().replace('-', ' ') + " is missing", fixOf(missing));
		}
		KeyResolver distinct = distinct(prefix, algorithm, rule, apiKeyHeader);
		if (rule.getScope() == RateLimitProperties.Scope.GLOBAL) {
			if (algorithm != Algorithm.FIXED_WINDOW && algorithm != Algorithm.SLIDING_WINDOW_COUNTER) {
				throw new InvalidRateLimitRuleException(prefix + ".scope", "a global limit counts windows across regions,"
						+ " and " + rule.getAlgorithm().name().toLowerCase(Locale.ROOT).replace('_', '-') + " has none",
						"Use algorithm fixed-window or sliding-window-counter, or scope: share");
			}
			if (rule.getSync() == RateLimitProperties.SyncMode.LOCAL) {
				throw new InvalidRateLimitRuleException(prefix + ".sync", "a global limit is counted in the region's"
						+ " Redis, not in local views", "Remove sync: local, or use scope: region or share");
			}
			if (rule.getCalendar() != null) {
				throw new InvalidRateLimitRuleException(prefix + ".scope", "a calendar quota is counted exactly in one"
						+ " Redis, not across regions", "Remove scope: global, or count per period instead of calendar");
			}
		}
		double share = (rule.getScope() == RateLimitProperties.Scope.SHARE) ? regionShare : 1;
		long limit = shareOf(share, required(prefix + ".limit", rule.getLimit(), fixOf(Field.LIMIT)));
		Long configuredBurst = rule.getBurst();
		if (configuredBurst != null && configuredBurst < 1) {
			// the policy reads 0 as "the default"; written out, it is a mistake
			throw new InvalidRateLimitRuleException(prefix + ".burst", "must be at least 1 but was " + configuredBurst,
					fixOf(Field.BURST));
		}
		Long burst = (configuredBurst != null) ? shareOf(share, configuredBurst) : null;
		RateLimitPolicy policy = policy(prefix, prefix + ".limit",
				() -> new RateLimitPolicy(name, algorithm, limit, period, (burst != null) ? burst : 0,
						rule.isSpreadWindows(), calendar, warmUp(prefix, algorithm, rule), rule.getColdFactor()));
		Map<String, RateLimitPolicy> tiers = new LinkedHashMap<>();
		rule.getTiers().forEach((tier, tierLimit) -> {
			String property = prefix + ".tiers." + tier;
			long value = shareOf(share, required(property, tierLimit, "Set it to the tier's limit per period"));
			tiers.put(tier, policy(prefix, property, () -> new RateLimitPolicy(name, algorithm, value, period,
					(burst != null) ? burst : 0, rule.isSpreadWindows(), calendar, warmUp(prefix, algorithm, rule),
					rule.getColdFactor())));
		});
		Map<String, RateLimitPolicy> exceptions = exceptions(prefix, rule, policy, share, maxExceptionsPerRule);
		KeyResolver tierKey = null;
		if (!tiers.isEmpty() || rule.getTierKey() != null) {
			if (rule.getTierKey() == null || rule.getTierKey().isBlank()) {
				throw new InvalidRateLimitRuleException(prefix + ".tier-key", "tiers are set but not how to find a tier",
						"Set tier-key to header:<Name>, a SpEL template #{...} or @beanName");
			}
			tierKey = key(prefix + ".tier-key", rule.getTierKey(), apiKeyHeader);
		}
		CountWhen countWhen = countWhen(prefix + ".count-when", rule.getCountWhen());
		return new RateLimitRule(name, match(prefix + ".match", rule.getMatch()),
				key(prefix + ".key", rule.getKey(), apiKeyHeader), policy, tiers, tierKey,
				cost(prefix + ".cost", rule.getCost()), rule.getMode(), rule.getOnStoreFailure(), phase(rule),
				status(prefix + ".status", rule.getStatus(), defaultStatus(algorithm, rule.getKey())), distinct,
				countWhen, waiting(prefix, algorithm, rule), sync(prefix, algorithm, rule, policy), exceptions,
				settle(prefix, rule, policy, countWhen), zoneKey(prefix, rule, apiKeyHeader));
	}

	/**
	 * Compiles {@code zone-key}, the subject's own zone of a calendar quota, resolved per request in the forms of
	 * {@code key} and {@code tier-key} that read the request ({@code header:<Name>}, a SpEL template,
	 * {@code @beanName}), or {@code null} when every subject counts in {@code zone}. Unlike a key, a missing header or
	 * an empty template gives nothing (the rule's {@code zone}), not the client IP.
	 * @throws InvalidRateLimitRuleException naming the property for a zone key on a rule without a calendar, blank, or
	 * in another form
	 */
	private @Nullable KeyResolver zoneKey(String prefix, RateLimitProperties.Rule rule, String apiKeyHeader) {
		String text = rule.getZoneKey();
		if (text == null) {
			return null;
		}
		String property = prefix + ".zone-key";
		String fix = "Set it to header:<Name>, a SpEL template #{...} or @beanName giving an IANA zone id, or remove it"
				+ " to count every subject in zone";
		if (rule.getCalendar() == null) {
			throw new InvalidRateLimitRuleException(property, "a zone key gives the zone of a calendar quota's windows,"
					+ " and this rule has no calendar", "Set calendar: day, week or month, or remove zone-key");
		}
		String spec = text.trim();
		if (spec.isEmpty()) {
			throw new InvalidRateLimitRuleException(property, "is blank", fix);
		}
		if (spec.regionMatches(true, 0, "header:", 0, "header:".length())) {
			String name = spec.substring("header:".length()).trim();
			if (name.isEmpty()) {
				throw new InvalidRateLimitRuleException(property, "'header:' needs a header name", fix);
			}
			return (request) -> request.getHeader(name);
		}
		if (RequestExpressions.isTemplate(spec)) {
			Expression expression;
			try {
				expression = this.expressions.parse(spec);
			}
			catch (ParseException ex) {
				throw new InvalidRateLimitRuleException(property, "'" + spec + "' is not a valid SpEL template: "
						+ ex.getMessage(), "Fix the expression, e.g. #{request.getHeader('X-Zone')}");
			}
			return (request) -> {
				Object value = this.expressions.evaluate(expression, request);
				return (value != null) ? value.toString() : null;
			};
		}
		if (spec.startsWith("@") && spec.length() > 1 && !spec.contains("+")) {
			return key(property, spec, apiKeyHeader);
		}
		throw new InvalidRateLimitRuleException(property, "'" + spec + "' does not read a zone from the request", fix);
	}

	/**
	 * Compiles {@code settle}: its source, {@link SettleSource#code()} for a rule with a cost of its own that may be
	 * settled from code, or {@code null} for a rule whose cost is known before the request runs.
	 * @throws InvalidRateLimitRuleException naming the property for a source that is neither a header nor a template,
	 * invalid SpEL or a template that gives something else than a number, an algorithm that cannot be settled, and
	 * {@code count-when} beside it
	 */
	private static @Nullable SettleSource settle(String prefix, RateLimitProperties.Rule rule, RateLimitPolicy policy,
			@Nullable CountWhen countWhen) {
		String text = rule.getSettle();
		boolean ownCost = !rule.getCost().trim().equals("1");
		if (text == null || text.isBlank()) {
			// a cost of its own is an estimate that the handler may settle from code
			return (ownCost && countWhen == null && Settlement.supports(policy)) ? SettleSource.code() : null;
		}
		String property = prefix + ".settle";
		if (!Settlement.supports(policy)) {
			throw new InvalidRateLimitRuleException(property, policy.algorithm().configName() + " cannot be settled"
					+ " after the response", "Use algorithm gcra, token-bucket, leaky-bucket, fixed-window (or a"
							+ " calendar) or sliding-window-counter, or remove settle");
		}
		if (countWhen != null) {
			throw new InvalidRateLimitRuleException(property, "settle and count-when both change what an admitted"
					+ " request counts when it ends", "Remove count-when (a request that settles 0 units gives its"
							+ " estimate back), or remove settle");
		}
		SettleSource source;
		try {
			source = SettleSource.parse(text);
		}
		catch (ParseException ex) {
			throw new InvalidRateLimitRuleException(property, "'" + text + "' is not a valid SpEL template: "
					+ ex.getMessage(), "Fix the expression, e.g. #{headers.getFirst('X-Usage-Tokens')}");
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(property, ex.getMessage(), "Use header:<Name>, e.g."
					+ " header:X-Usage-Tokens, or a SpEL template over the response (status, headers), e.g."
					+ " #{headers.getFirst('X-Usage-Tokens')}");
		}
		checkUnits(property, text, source);
		return source;
	}

	/**
	 * Evaluates a settle template for a typical response (200, a usage header) and refuses one that gives something
	 * else than a number. One that throws there may still work for other responses, so only a result of the wrong type
	 * fails start-up.
	 */
	private static void checkUnits(String property, String text, SettleSource source) {
		Object value;
		try {
			HttpHeaders headers = new HttpHeaders();
			headers.add("X-Usage-Tokens", "1");
			value = source.evaluate(new SettleResponse(200,
					HttpHeaders.readOnlyHttpHeaders(headers)));
		}
		catch (RuntimeException ex) {
			return;
		}
		if (value != null && !(value instanceof Number) && !(value instanceof CharSequence)) {
			throw new InvalidRateLimitRuleException(property, "'" + text + "' gives " + value.getClass().getSimpleName()
					+ ", not a number of units", "Write an expression that gives the units, e.g."
							+ " #{headers.getFirst('X-Usage-Tokens')}");
		}
	}

	/**
	 * Returns the policy per subject of {@code exceptions}.
	 * @throws InvalidRateLimitRuleException naming the property for a blank subject, a missing or invalid limit, and
	 * more exceptions than {@code ratelimit.exceptions.max-per-rule}
	 */
	private static Map<String, RateLimitPolicy> exceptions(String prefix, RateLimitProperties.Rule rule,
			RateLimitPolicy policy, double share, int maxPerRule) {
		Map<String, RateLimitPolicy> exceptions = new LinkedHashMap<>();
		if (rule.getExceptions().size() > maxPerRule) {
			throw new InvalidRateLimitRuleException(prefix + ".exceptions", "has " + rule.getExceptions().size()
					+ " exceptions, more than ratelimit.exceptions.max-per-rule (" + maxPerRule + ")",
					"Remove exceptions, give the subjects a tier, or raise ratelimit.exceptions.max-per-rule");
		}
		rule.getExceptions().forEach((subject, limit) -> {
			String property = prefix + ".exceptions." + subject;
			if (subject.isBlank()) {
				throw new InvalidRateLimitRuleException(prefix + ".exceptions", "has a blank subject",
						"Write each subject as the rule's key resolves it, e.g. user-42: 1000");
			}
			long value = shareOf(share, required(property, limit, "Set it to the subject's limit per period"));
			exceptions.put(subject, policy(prefix, property, () -> RateLimitRule.exceptionPolicy(policy, value)));
		});
		return exceptions;
	}

	/**
	 * Returns the calendar of a calendar quota ({@code calendar: day | week | month}), or {@code null}.
	 * @throws InvalidRateLimitRuleException naming the property for a calendar beside a period, an algorithm that is
	 * not fixed-window, spread windows or local decisions, and for an unknown zone
	 */
	private static @Nullable CalendarPeriod calendar(String prefix, RateLimitProperties.Rule rule) {
		CalendarPeriod.Unit unit = rule.getCalendar();
		if (unit == null) {
			return null;
		}
		if (rule.getPeriod() != null) {
			throw new InvalidRateLimitRuleException(prefix + ".period", "calendar (" + unit.configName()
					+ ") takes the place of period: a rule has one or the other",
					"Remove period to count per calendar " + unit.configName() + ", or remove calendar");
		}
		if (rule.isAlgorithmSet() && rule.getAlgorithm().rateAlgorithm() != Algorithm.FIXED_WINDOW) {
			throw new InvalidRateLimitRuleException(prefix + ".algorithm", "a calendar quota counts in fixed windows"
					+ " aligned to the calendar; " + rule.getAlgorithm().name().toLowerCase(Locale.ROOT).replace('_', '-')
					+ " is not one", "Remove algorithm (calendar implies fixed-window), or set it to fixed-window");
		}
		if (rule.isSpreadWindows()) {
			throw new InvalidRateLimitRuleException(prefix + ".spread-windows",
					"calendar windows start at the calendar's boundaries, the same for every subject",
					"Remove spread-windows");
		}
		if (rule.getSync() == RateLimitProperties.SyncMode.LOCAL) {
			throw new InvalidRateLimitRuleException(prefix + ".sync", "a calendar quota is decided exactly",
					"Use sync: exact (the default)");
		}
		ZoneId zone;
		try {
			zone = ZoneId.of(rule.getZone().trim());
		}
		catch (DateTimeException ex) {
			throw new InvalidRateLimitRuleException(prefix + ".zone", "'" + rule.getZone() + "' is not a time zone ("
					+ ex.getMessage() + ")", "Use an IANA zone id such as Europe/Berlin, America/New_York or UTC");
		}
		return new CalendarPeriod(unit, zone, rule.getWeekStart());
	}

	/**
	 * Returns a rule's warm-up, refused with the modes that need a state it does not keep: a reservation
	 * ({@code max-wait}) and local decisions ({@code sync: local}).
	 */
	private static Duration warmUp(String prefix, Algorithm algorithm, RateLimitProperties.Rule rule) {
		Duration warmUp = rule.getWarmUp();
		if (warmUp == null || warmUp.isZero()) {
			return Duration.ZERO;
		}
		if (!rule.getMaxWait().isZero()) {
			throw new InvalidRateLimitRuleException(prefix + ".warm-up",
					"a key warming up has no reservations (max-wait) yet", "Remove max-wait or warm-up");
		}
		if (rule.getSync() == RateLimitProperties.SyncMode.LOCAL) {
			throw new InvalidRateLimitRuleException(prefix + ".warm-up",
					"a key warming up is decided in the shared store only, not locally (sync: local)",
					"Use sync: exact, or remove warm-up");
		}
		return warmUp;
	}

	/** Returns a region's share of a limit: rounded down, at least 1. */
	private static long shareOf(double share, long limit) {
		return (share >= 1) ? limit : Math.max(1, (long) Math.floor(limit * share + 1e-9));
	}

	/** The algorithms whose state takes a delta of units admitted elsewhere (Syncable in the reference maths). */
	private static final Set<Algorithm> SYNCABLE = EnumSet.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET,
			Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_COUNTER);

	private static @Nullable SyncSettings sync(String prefix, Algorithm algorithm, RateLimitProperties.Rule rule,
			RateLimitPolicy policy) {
		if (rule.getSync() != RateLimitProperties.SyncMode.LOCAL) {
			return null;
		}
		if (!SYNCABLE.contains(algorithm)) {
			throw new InvalidRateLimitRuleException(prefix + ".sync", algorithm.configName()
					+ " cannot decide locally: " + whyNotSyncable(algorithm),
					"Use sync: exact, or algorithm gcra, token-bucket, fixed-window or sliding-window-counter"
							+ " (see docs/consistency.md)");
		}
		if (!rule.getMaxWait().isZero()) {
			throw new InvalidRateLimitRuleException(prefix + ".sync",
					"a rule that waits for a reserved slot (max-wait) needs the exact shared state",
					"Use sync: exact, or remove max-wait");
		}
		Duration interval = rule.getSyncInterval();
		if (interval == null || interval.isNegative() || interval.isZero()) {
			throw new InvalidRateLimitRuleException(prefix + ".sync-interval", "must be positive but was " + interval,
					"Set it to how often local admissions are sent to the shared store, e.g. 100ms");
		}
		Long threshold = rule.getSyncThreshold();
		if (threshold != null && threshold < 1) {
			throw new InvalidRateLimitRuleException(prefix + ".sync-threshold",
					"must be at least 1 but was " + threshold,
					"Set it to the unsynchronized units of one key that send a flush at once, or leave it unset for"
							+ " 10% of the limit");
		}
		return new SyncSettings(interval, (threshold != null) ? threshold : Math.max(1, policy.limit() / 10));
	}

	private static String whyNotSyncable(Algorithm algorithm) {
		return switch (algorithm) {
			case SLIDING_WINDOW_LOG -> "its state is each admission's time, which a count of units sent later lacks";
			case CONCURRENCY -> "a lease must be known to every instance while it is held, to be released";
			case DISTINCT -> "a value counts once whichever instance saw it, which counts per instance cannot tell";
			case LEAKY_BUCKET -> "not supported yet (its state would take a delta as the token bucket's does)";
			default -> "its state takes no delta";
		};
	}

	/**
	 * Returns the default status of a rate rule's denials: 503 for a concurrency cap shared by every client (a key
	 * made of {@code global} and {@code endpoint} only), which protects the server itself (the client did nothing
	 * wrong), else 429.
	 */
	private static DenialStatus defaultStatus(Algorithm algorithm, String key) {
		return (algorithm == Algorithm.CONCURRENCY && !KeyResolvers.mayUseClientIp(key))
				? DenialStatus.SERVICE_UNAVAILABLE : DenialStatus.TOO_MANY_REQUESTS;
	}

	/** Returns the configured status of a rule's denials, or its default. */
	private static DenialStatus status(String property, @Nullable Integer status, DenialStatus defaultStatus) {
		if (status == null) {
			return defaultStatus;
		}
		try {
			return DenialStatus.of(status);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(property, ex.getMessage(),
					"Use 429 (the client asked too much and can slow down) or 503 (the server cannot take more right"
							+ " now), or remove it for the default");
		}
	}

	/** Compiles the values a distinct rule counts: required by distinct, rejected by every other algorithm. */
	private @Nullable KeyResolver distinct(String prefix, Algorithm algorithm, RateLimitProperties.Rule rule,
			String apiKeyHeader) {
		String spec = rule.getDistinct();
		if (algorithm != Algorithm.DISTINCT) {
			if (spec != null) {
				throw new InvalidRateLimitRuleException(prefix + ".distinct",
						"only algorithm distinct counts distinct values, not " + algorithm.configName(),
						"Remove it, or set algorithm to distinct");
			}
			return null;
		}
		if (spec == null || spec.isBlank()) {
			throw new InvalidRateLimitRuleException(prefix + ".distinct", "algorithm distinct needs the values to count",
					"Set it like a key, e.g. header:X-Username or #{request.getParameter('username')}");
		}
		if (!rule.getCost().trim().equals("1")) {
			throw new InvalidRateLimitRuleException(prefix + ".cost",
					"a distinct rule counts values, each request presenting one, so it has no cost",
					"Remove it");
		}
		return key(prefix + ".distinct", spec, apiKeyHeader);
	}

	/** Compiles {@code count-when}, or returns {@code null} when it sets no condition (every request counts). */
	private @Nullable CountWhen countWhen(String prefix, RateLimitProperties.CountWhen countWhen) {
		if (!countWhen.hasConditions()) {
			return null;
		}
		Set<Integer> statuses = new LinkedHashSet<>();
		List<Integer> configured = countWhen.getStatus();
		for (int i = 0; i < configured.size(); i++) {
			Integer status = configured.get(i);
			if (status == null || status < 100 || status > 599) {
				throw new InvalidRateLimitRuleException(prefix + ".status[" + i + "]",
						"'" + status + "' is not an HTTP status", "Use statuses from 100 to 599, e.g. [401, 403]");
			}
			statuses.add(status);
		}
		List<Class<? extends Throwable>> exceptions = new ArrayList<>();
		List<String> names = countWhen.getExceptions();
		for (int i = 0; i < names.size(); i++) {
			exceptions.add(exceptionType(prefix + ".exceptions[" + i + "]", names.get(i)));
		}
		Expression expression = null;
		String text = countWhen.getExpression();
		if (text != null && !text.isBlank()) {
			try {
				expression = CountWhen.parse(text);
			}
			catch (ParseException ex) {
				throw new InvalidRateLimitRuleException(prefix + ".expression",
						"'" + text + "' is not a valid SpEL expression: " + ex.getMessage(),
						"Fix the expression, e.g. #{status >= 500} or #{exception != null}");
			}
			checkBoolean(prefix + ".expression", text, expression);
		}
		return new CountWhen(statuses, exceptions, expression);
	}

	private static Class<? extends Throwable> exceptionType(String property, @Nullable String name) {
		String trimmed = (name != null) ? name.trim() : "";
		Class<?> type;
		try {
			type = ClassUtils.forName(trimmed, RuleCompiler.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError | IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(property, "there is no class '" + trimmed + "'",
					"Use the fully qualified name of an exception class, e.g."
							+ " org.springframework.security.authentication.BadCredentialsException");
		}
		if (!Throwable.class.isAssignableFrom(type)) {
			throw new InvalidRateLimitRuleException(property, "'" + trimmed + "' is not an exception",
					"Use the fully qualified name of a Throwable subclass");
		}
		return type.asSubclass(Throwable.class);
	}

	/**
	 * Evaluates the expression for a typical failure (status 500, an exception) and refuses one that gives something
	 * else than a boolean. One that throws there may still work for other outcomes (e.g. it reads the exception only
	 * when there is one), so only a result of the wrong type fails start-up.
	 */
	private static void checkBoolean(String property, String text, Expression expression) {
		Object value;
		try {
			value = CountWhen.evaluate(expression, 500, new IllegalStateException("start-up check"));
		}
		catch (RuntimeException ex) {
			return;
		}
		if (value != null && !(value instanceof Boolean)) {
			throw new InvalidRateLimitRuleException(property, "'" + text + "' gives " + value.getClass().getSimpleName()
					+ ", not true or false", "Write a condition, e.g. #{status >= 500} or #{status == 401}");
		}
	}


	/** Returns how the rule's requests may wait for a reserved slot. */
	private static RuleWaiting waiting(String prefix, Algorithm algorithm, RateLimitProperties.Rule rule) {
		Duration maxWait = rule.getMaxWait();
		if (maxWait == null || maxWait.isNegative()) {
			throw new InvalidRateLimitRuleException(prefix + ".max-wait", "must not be negative but was " + maxWait,
					"Set it to the longest wait for a slot, e.g. 500ms, or 0 to reject at once");
		}
		if (!maxWait.isZero() && !algorithm.supportsReservations()) {
			throw new InvalidRateLimitRuleException(prefix + ".max-wait",
					algorithm.configName() + " cannot reserve a slot for a waiting request",
					"Remove max-wait, or use algorithm gcra, token-bucket or leaky-bucket (see docs/waiting.md)");
		}
		if (rule.getMaxWaiting() < 1) {
			throw new InvalidRateLimitRuleException(prefix + ".max-waiting",
					"must be at least 1 but was " + rule.getMaxWaiting(),
					"Set it to the most requests that may wait at once in one instance (default "
							+ RuleWaiting.DEFAULT_MAX_WAITING + ")");
		}
		return new RuleWaiting(maxWait, rule.getMaxWaiting());
	}

	private AdaptiveConcurrencyRule compileAdaptive(String name, RateLimitProperties.Rule rule) {
		String prefix = "ratelimit.rules." + name;
		checkName(prefix, name);
		// an adaptive limit is this instance's, for every client: no rate, no key, no store
		notForAdaptive(prefix + ".limit", rule.getLimit() != null);
		notForAdaptive(prefix + ".period", rule.getPeriod() != null);
		notForAdaptive(prefix + ".burst", rule.getBurst() != null);
		notForAdaptive(prefix + ".spread-windows", rule.isSpreadWindows());
		notForAdaptive(prefix + ".tiers", !rule.getTiers().isEmpty());
		notForAdaptive(prefix + ".exceptions", !rule.getExceptions().isEmpty());
		notForAdaptive(prefix + ".tier-key", rule.getTierKey() != null);
		notForAdaptive(prefix + ".zone-key", rule.getZoneKey() != null);
		notForAdaptive(prefix + ".cost", !rule.getCost().trim().equals("1"));
		notForAdaptive(prefix + ".key", !rule.getKey().trim().equals("ip"));
		notForAdaptive(prefix + ".on-store-failure", rule.getOnStoreFailure() != StoreFailureMode.LOCAL);
		notForAdaptive(prefix + ".count-when", rule.getCountWhen().hasConditions());
		notForAdaptive(prefix + ".settle", rule.getSettle() != null);
		notForAdaptive(prefix + ".max-wait", rule.getMaxWait() != null && !rule.getMaxWait().isZero());
		RateLimitProperties.Adaptive adaptive = rule.getAdaptive();
		int min = (adaptive.getMinLimit() != null) ? adaptive.getMinLimit() : AdaptiveSettings.DEFAULT_MIN_LIMIT;
		int max = (adaptive.getMaxLimit() != null) ? adaptive.getMaxLimit() : AdaptiveSettings.DEFAULT_MAX_LIMIT;
		if (min < 1) {
			throw new InvalidRateLimitRuleException(prefix + ".adaptive.min-limit", "must be at least 1 but was " + min,
					"Set it to the fewest requests this instance should always take at once, e.g. 1");
		}
		if (max < min) {
			throw new InvalidRateLimitRuleException(prefix + ".adaptive.min-limit",
					"min-limit " + min + " is above max-limit " + max,
					"Set min-limit at or below max-limit (default " + AdaptiveSettings.DEFAULT_MAX_LIMIT + ")");
		}
		int initial = (adaptive.getInitialLimit() != null) ? adaptive.getInitialLimit()
				: Math.max(min, Math.min(max, AdaptiveSettings.DEFAULT_INITIAL_LIMIT));
		if (initial < min || initial > max) {
			throw new InvalidRateLimitRuleException(prefix + ".adaptive.initial-limit",
					"initial-limit " + initial + " is outside min-limit " + min + " to max-limit " + max,
					"Set it between min-limit and max-limit, or remove it");
		}
		AdaptiveSettings settings = new AdaptiveSettings(
				(adaptive.getStrategy() != null) ? adaptive.getStrategy() : AdaptiveSettings.DEFAULT_STRATEGY, initial,
				min, max);
		return new AdaptiveConcurrencyRule(name, match(prefix + ".match", rule.getMatch()), settings, rule.getMode(),
				phase(rule), status(prefix + ".status", rule.getStatus(), DenialStatus.SERVICE_UNAVAILABLE));
	}

	private static void notForAdaptive(String property, boolean set) {
		if (set) {
			throw new InvalidRateLimitRuleException(property,
					"has no meaning for adaptive-concurrency, a limit on this instance's requests in progress",
					"Remove it, or declare a separate rate rule on the same paths (e.g. a per-client cap)");
		}
	}

	private static boolean isSet(RateLimitProperties.Adaptive adaptive) {
		return adaptive.getStrategy() != null || adaptive.getInitialLimit() != null || adaptive.getMinLimit() != null
				|| adaptive.getMaxLimit() != null;
	}

	private static void checkName(String prefix, String name) {
		try {
			RateLimitPolicy.checkName(name);
		}
		catch (RateLimitPolicy.InvalidPolicyException ex) {
			throw invalid(prefix, ex);
		}
		if (name.equals("offenders") || name.equals("lists")) {
			throw new InvalidRateLimitRuleException(prefix, "'" + name + "' is reserved by the ratelimits endpoint",
					"Rename the rule");
		}
	}

	/** Resolves {@code auto}: after authentication when the key or tier key has a {@code user} part, else before. */
	private static RulePhase phase(RateLimitProperties.Rule rule) {
		if (rule.getPhase() != RulePhase.AUTO) {
			return rule.getPhase();
		}
		boolean user = KeyResolvers.hasPart(rule.getKey(), "user")
				|| (rule.getTierKey() != null && KeyResolvers.hasPart(rule.getTierKey(), "user"))
				|| (rule.getDistinct() != null && KeyResolvers.hasPart(rule.getDistinct(), "user"));
		return user ? RulePhase.AFTER_AUTHENTICATION : RulePhase.BEFORE_AUTHENTICATION;
	}

	private static long required(String property, @Nullable Long value, String fix) {
		if (value == null) {
			throw new InvalidRateLimitRuleException(property, "the value is missing", fix);
		}
		return value;
	}

	/**
	 * Builds a policy; a value it refuses is reported at the property of its field.
	 * @param prefix the rule's properties
	 * @param limitProperty the property the limit comes from (the rule's, or a tier's)
	 * @param policy builds the policy
	 */
	private static RateLimitPolicy policy(String prefix, String limitProperty, Supplier<RateLimitPolicy> policy) {
		try {
			return policy.get();
		}
		catch (RateLimitPolicy.InvalidPolicyException ex) {
			throw (ex.field() == Field.LIMIT) ? new InvalidRateLimitRuleException(limitProperty, ex.getMessage(),
					fixOf(Field.LIMIT)) : invalid(prefix, ex);
		}
	}

	private static InvalidRateLimitRuleException invalid(String prefix, RateLimitPolicy.InvalidPolicyException ex) {
		String property = (ex.field() == Field.NAME) ? prefix : prefix + "." + ex.field().propertyName();
		return new InvalidRateLimitRuleException(property, ex.getMessage(), fixOf(ex.field()));
	}

	private static String fixOf(Field field) {
		return switch (field) {
			case NAME -> "Rename the rule, e.g. 'api-per-ip'";
			case LIMIT -> "Set it to the number of requests allowed per period, within the documented bounds";
			case PERIOD -> "Set it to a duration between 1ms and 366d, e.g. 10s, 1m, 15m or 1h";
			case BURST -> "Set it to how many requests may arrive at once (gcra, token-bucket or leaky-bucket only),"
					+ " or remove it";
			case SPREAD_WINDOWS -> "Remove it or use algorithm fixed-window";
			case LEASE_TIMEOUT -> "Set it to the longest a request may hold its slot, between 1ms and 366d, e.g. 30s";
			case CALENDAR -> "Remove algorithm (calendar implies fixed-window), or remove calendar";
			case WARM_UP -> "Set it to how long a key is used after idleness before it admits at the full rate (gcra"
					+ " or token-bucket only), e.g. 30s, or remove it";
			case COLD_FACTOR -> "Set it to how much slower a cold key admits, from 1 to 100 (default 3)";
		};
	}

	/**
	 * Describes a compiled rule in one line for the start-up log, e.g. {@code Rate limit rule 'hello': GET /api/hello,
	 * key ip, gcra 5 per PT10S, on store failure local}.
	 */
	static String describe(RateLimitRule compiled, RateLimitProperties.Rule rule) {
		StringBuilder line = describeMatch(compiled.name(), compiled.match());
		RateLimitPolicy policy = compiled.policy();
		line.append(", key ").append(rule.getKey().trim()).append(", ").append(policy.algorithm().configName())
			.append(' ').append(policy.limit())
			.append((policy.algorithm() == Algorithm.CONCURRENCY) ? " in flight, lease timeout "
					: (policy.algorithm() == Algorithm.DISTINCT) ? " values of " + rule.getDistinct().trim() + " per "
							: " per ")
			.append((policy.calendar() != null) ? policy.calendar().toString() : Periods.format(policy.period()));
		if (compiled.zoneKey() != null) {
			line.append(" (or the subject's zone from ").append(rule.getZoneKey().trim()).append(')');
		}
		if (policy.algorithm().usesBurst() && policy.capacity() != policy.limit()) {
			line.append(" (burst ").append(policy.capacity()).append(')');
		}
		if (policy.warmsUp()) {
			line.append(", warms up over ").append(Periods.format(policy.warmUp())).append(" from 1/")
				.append(BigDecimal.valueOf(policy.coldFactor()).stripTrailingZeros().toPlainString())
				.append(" of the rate");
		}
		if (!compiled.tiers().isEmpty()) {
			line.append(", tiers ").append(new TreeMap<>(rule.getTiers()));
		}
		if (compiled.countWhen() != null) {
			line.append(", counts only ").append(compiled.countWhen());
		}
		if (compiled.settle() != null && !compiled.settle().isCodeOnly()) {
			// a rule with a cost of its own may be settled from code too, which is no setting of its own to show
			line.append(", settled from ").append(compiled.settle());
		}
		if (compiled.waiting().waits()) {
			line.append(", waits up to ").append(Periods.format(compiled.waiting().maxWait())).append(" (")
				.append(compiled.waiting().maxWaiting()).append(" at once)");
		}
		line.append(", ").append(compiled.mode().name().toLowerCase(Locale.ROOT))
			.append(", on store failure ").append(compiled.onStoreFailure().name().toLowerCase(Locale.ROOT));
		return line.toString();
	}

	/**
	 * Describes a compiled adaptive rule in one line, e.g. {@code Rate limit rule 'slow': any method /api/slow,
	 * adaptive-concurrency gradient2 from 20 within 1..200 requests at once in this instance, enforce}.
	 */
	static String describe(AdaptiveConcurrencyRule compiled) {
		AdaptiveSettings settings = compiled.settings();
		return describeMatch(compiled.name(), compiled.match()).append(", adaptive-concurrency ")
			.append(settings.strategy().configName()).append(" from ").append(settings.initialLimit())
			.append(" within ").append(settings.minLimit()).append("..").append(settings.maxLimit())
			.append(" requests at once in this instance, ").append(compiled.mode().name().toLowerCase(Locale.ROOT))
			.toString();
	}

	private static StringBuilder describeMatch(String name, RequestMatch match) {
		StringBuilder line = new StringBuilder("Rate limit rule '").append(name).append("': ");
		if (!match.enabled()) {
			line.append("no requests (used by @RateLimited only)");
		}
		else {
			line.append(match.methods().isEmpty() ? "any method" : String.join("|", new TreeSet<>(match.methods())))
				.append(' ')
				.append(match.paths().isEmpty() ? "every path" : patternsText(match.paths()));
			if (!match.excludePaths().isEmpty()) {
				line.append(" except ").append(patternsText(match.excludePaths()));
			}
		}
		return line;
	}

	private static String patternsText(List<PathPattern> patterns) {
		return String.join(",", patterns.stream().map(PathPattern::getPatternString).toList());
	}

	private RequestMatch match(String prefix, RateLimitProperties.Match match) {
		PathPatternParser parser = PathPatternParser.defaultInstance;
		List<PathPattern> paths = patterns(prefix + ".paths", match.getPaths(), parser);
		List<PathPattern> excludes = patterns(prefix + ".exclude-paths", match.getExcludePaths(), parser);
		if (paths.isEmpty() && this.actuatorBasePath != null) {
			// A rule without paths limits the application, not the operators' health checks and scrapes: leave the
			// actuator out unless the rule names its paths (e.g. /**).
			excludes = new ArrayList<>(excludes);
			excludes.add(parser.parse(this.actuatorBasePath + "/**"));
		}
		Set<String> methods = new LinkedHashSet<>();
		match.getMethods().forEach((method) -> methods.add(method.name()));
		return new RequestMatch(match.isEnabled(), paths, excludes, methods);
	}

	private static List<PathPattern> patterns(String property, List<String> values, PathPatternParser parser) {
		List<PathPattern> patterns = new ArrayList<>();
		for (int i = 0; i < values.size(); i++) {
			try {
				patterns.add(parser.parse(values.get(i).trim()));
			}
			catch (PatternParseException ex) {
				throw new InvalidRateLimitRuleException(property + "[" + i + "]",
						"'" + values.get(i) + "' is not a valid path pattern (" + ex.getMessage() + ")",
						"Use PathPattern syntax, e.g. /api/** or /users/{id}; '**' is allowed only at the end");
			}
		}
		return patterns;
	}

	private KeyResolver key(String property, String spec, String apiKeyHeader) {
		try {
			return KeyResolvers.parse(spec, apiKeyHeader, this.expressions, this.beans);
		}
		catch (ParseException ex) {
			throw new InvalidRateLimitRuleException(property, "'" + spec + "' is not a valid SpEL template: "
					+ ex.getMessage(), "Fix the expression, e.g. #{request.getHeader('X-Tenant')}");
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException(property, ex.getMessage(),
					"Use ip, user, api-key, global, endpoint, path, header:<Name>, a SpEL template #{...} or @beanName"
							+ " (a KeyResolver bean); join several with '+'");
		}
	}

	private CostResolver cost(String property, String value) {
		String trimmed = value.trim();
		if (RequestExpressions.isTemplate(trimmed)) {
			Expression expression;
			try {
				expression = this.expressions.parse(trimmed);
			}
			catch (ParseException ex) {
				throw new InvalidRateLimitRuleException(property, "'" + value + "' is not a valid SpEL template: "
						+ ex.getMessage(), "Fix the expression, e.g. #{request.getParameter('pageSize') ?: 1}");
			}
			return (request) -> CostResolver.costOf(this.expressions.evaluate(expression, request));
		}
		try {
			long cost = Long.parseLong(trimmed);
			if (cost >= 1 && cost <= RateLimitCheck.MAX_COST) {
				return CostResolver.fixed(cost);
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new InvalidRateLimitRuleException(property, "'" + value + "' is neither a positive integer nor a"
				+ " SpEL template", "Set it to an integer such as 1, or a template such as #{request.getParameter('n')}");
	}

}
