package dev.ratelimit.autoconfigure;

import java.time.DayOfWeek;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.adaptive.AdaptiveStrategy;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.rule.RuleMode;
import dev.ratelimit.rule.RuleOverrideRepository;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.rule.RuleWaiting;
import dev.ratelimit.web.HeaderStyle;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.web.bind.annotation.RequestMethod;

/**
 * Configuration properties of the rate limiter. Converted once, at start-up, into immutable rules; runtime code never
 * reads this class.
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties {

	/**
	 * Whether rate limiting is enabled.
	 */
	private boolean enabled = true;

	/**
	 * Where limit state lives: 'auto' uses Redis when a RedisConnectionFactory bean exists, else memory.
	 */
	private Store store = Store.AUTO;

	/**
	 * Prefix of every Redis key written by the limiter.
	 */
	private String keyPrefix = "rl";

	/**
	 * Which rate limit headers to send, and what they include; 'ratelimit.headers: ietf' is short for
	 * 'ratelimit.headers.style: ietf'.
	 */
	private Headers headers = new Headers();

	/**
	 * Name of the request header that carries the API key used by 'api-key' rule keys.
	 */
	private String apiKeyHeader = "X-API-Key";

	private final Filter filter = new Filter();

	private final Redis redis = new Redis();

	private final Local local = new Local();

	private final Sync sync = new Sync();

	/**
	 * This instance's region, among {@code ratelimit.regions}; needed by rules with {@code scope: share} or
	 * {@code global}.
	 */
	private @Nullable String region;

	/**
	 * Every region of the deployment, by name (each with its own Redis), for rules with {@code scope: share} or
	 * {@code global}; {@code ratelimit.regions.replication-interval} (a duration, not a region) is how often a region
	 * ships its entries of global rules to the others.
	 */
	private Map<String, Region> regions = new LinkedHashMap<>();

	/** The key under {@code ratelimit.regions} that holds the replication interval rather than a region. */
	static final String REPLICATION_INTERVAL = "replication-interval";

	private final CircuitBreaker circuitBreaker = new CircuitBreaker();

	private final DenyCache denyCache = new DenyCache();

	private final Overrides overrides = new Overrides();

	private final Exceptions exceptions = new Exceptions();

	private final Lists lists = new Lists();

	private final Metrics metrics = new Metrics();

	private final Observations observations = new Observations();

	private final ClientIp clientIp = new ClientIp();

	private final Outbound outbound = new Outbound();

	/**
	 * Rules by name.
	 */
	private Map<String, Rule> rules = new LinkedHashMap<>();

	/**
	 * Further Redis servers by name, beside the application's (spring.data.redis.*), for rules that name one with
	 * 'store', e.g. a persistent Redis for billing quotas; each has its own circuit breaker, fallback and health.
	 */
	private Map<String, NamedStore> stores = new LinkedHashMap<>();

	public Map<String, NamedStore> getStores() {
		return this.stores;
	}

	public void setStores(Map<String, NamedStore> stores) {
		this.stores = stores;
	}

	/** A named Redis store: a standalone server, in the forms of spring.data.redis.* (url, or host and port). */
	public static class NamedStore {

		/**
		 * Connection URL, e.g. redis://user:password@billing-redis:6379/0; overrides host, port, username, password
		 * and database.
		 */
		private @Nullable String url;

		/** Redis server host. */
		private String host = "localhost";

		/** Redis server port. */
		private int port = 6379;

		/** Login username of the Redis server. */
		private @Nullable String username;

		/** Login password of the Redis server. */
		private @Nullable String password;

		/** Database index. */
		private int database;

		/** How long to wait for this store before it counts as failed; default: ratelimit.redis.timeout. */
		private @Nullable Duration timeout;

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

		public String getHost() {
			return this.host;
		}

		public void setHost(String host) {
			this.host = host;
		}

		public int getPort() {
			return this.port;
		}

		public void setPort(int port) {
			this.port = port;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public int getDatabase() {
			return this.database;
		}

		public void setDatabase(int database) {
			this.database = database;
		}

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			this.timeout = timeout;
		}

	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Store getStore() {
		return this.store;
	}

	public void setStore(Store store) {
		this.store = store;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Headers getHeaders() {
		return this.headers;
	}

	public void setHeaders(Headers headers) {
		this.headers = headers;
	}

	public String getApiKeyHeader() {
		return this.apiKeyHeader;
	}

	public void setApiKeyHeader(String apiKeyHeader) {
		this.apiKeyHeader = apiKeyHeader;
	}

	public Filter getFilter() {
		return this.filter;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Sync getSync() {
		return this.sync;
	}

	public @Nullable String getRegion() {
		return this.region;
	}

	public void setRegion(@Nullable String region) {
		this.region = region;
	}

	public Map<String, Region> getRegions() {
		return this.regions;
	}

	public void setRegions(Map<String, Region> regions) {
		this.regions = regions;
	}

	/**
	 * Returns the regions of the deployment: {@link #getRegions()} without the replication interval.
	 * @return the regions by name, in the order written
	 */
	public Map<String, Region> deploymentRegions() {
		Map<String, Region> regions = new LinkedHashMap<>(this.regions);
		regions.remove(REPLICATION_INTERVAL);
		return regions;
	}

	/**
	 * Returns how often a region ships its entries of {@code scope: global} rules to the other regions:
	 * {@code ratelimit.regions.replication-interval}, 100 ms by default.
	 * @return the interval
	 */
	public Duration replicationInterval() {
		Region entry = this.regions.get(REPLICATION_INTERVAL);
		return (entry != null && entry.interval != null) ? entry.interval : Duration.ofMillis(100);
	}

	public Local getLocal() {
		return this.local;
	}

	public CircuitBreaker getCircuitBreaker() {
		return this.circuitBreaker;
	}

	public DenyCache getDenyCache() {
		return this.denyCache;
	}

	public Overrides getOverrides() {
		return this.overrides;
	}

	public Exceptions getExceptions() {
		return this.exceptions;
	}

	public Lists getLists() {
		return this.lists;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Observations getObservations() {
		return this.observations;
	}

	public ClientIp getClientIp() {
		return this.clientIp;
	}

	public Outbound getOutbound() {
		return this.outbound;
	}

	/**
	 * Outbound limiting: rules applied to the calls this application makes with RestClient, RestTemplate and
	 * WebClient.
	 */
	public static class Outbound {

		/**
		 * Name of the rule to apply to every RestClient, RestTemplate and WebClient built from Spring Boot's
		 * auto-configured builders (including HTTP service clients).
		 */
		private @Nullable String rule;

		/**
		 * Rule to apply to the clients of each HTTP service group, by group name (@ImportHttpServices(group = ...)).
		 */
		private Map<String, String> groups = new LinkedHashMap<>();

		/**
		 * Whether a provider's 429, or 503 with Retry-After, pauses the rule's calls to that target in this instance
		 * for the Retry-After (calls that may wait as long wait, the others are refused at once).
		 */
		private boolean pauseOnRetryAfter;

		/**
		 * Longest pause after a provider's Retry-After.
		 */
		private Duration maxPause = Duration.ofMinutes(1);

		public @Nullable String getRule() {
			return this.rule;
		}

		public void setRule(@Nullable String rule) {
			this.rule = rule;
		}

		public Map<String, String> getGroups() {
			return this.groups;
		}

		public void setGroups(Map<String, String> groups) {
			this.groups = groups;
		}

		public boolean isPauseOnRetryAfter() {
			return this.pauseOnRetryAfter;
		}

		public void setPauseOnRetryAfter(boolean pauseOnRetryAfter) {
			this.pauseOnRetryAfter = pauseOnRetryAfter;
		}

		public Duration getMaxPause() {
			return this.maxPause;
		}

		public void setMaxPause(Duration maxPause) {
			this.maxPause = maxPause;
		}

	}

	/**
	 * How a client's address becomes its subject wherever the IP is the subject or the fallback subject: the address
	 * masked to its network.
	 */
	public static class ClientIp {

		/**
		 * Leading bits of an IPv4 address that name a client, 0 to 32 (32: each address is a client).
		 */
		private int ipv4PrefixLength = 32;

		/**
		 * Leading bits of an IPv6 address that name a client, 0 to 128 (64: a customer's /64 network is one client).
		 */
		private int ipv6PrefixLength = 64;

		public int getIpv4PrefixLength() {
			return this.ipv4PrefixLength;
		}

		public void setIpv4PrefixLength(int ipv4PrefixLength) {
			this.ipv4PrefixLength = ipv4PrefixLength;
		}

		public int getIpv6PrefixLength() {
			return this.ipv6PrefixLength;
		}

		public void setIpv6PrefixLength(int ipv6PrefixLength) {
			this.ipv6PrefixLength = ipv6PrefixLength;
		}

	}

	/** Settings of runtime overrides made through the actuator endpoint. */
	public static class Overrides {

		/**
		 * How often each instance reads the overrides shared through Redis.
		 */
		private Duration refreshInterval = Duration.ofMillis(500);

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

	}

	/** Settings of per-subject exceptions ({@code ratelimit.rules.<name>.exceptions} and the actuator's). */
	public static class Exceptions {

		/**
		 * Maximum number of exceptions a rule may have, configured and made at runtime each; the actuator refuses more.
		 */
		private int maxPerRule = RuleOverrideRepository.DEFAULT_MAX_EXCEPTIONS_PER_RULE;

		public int getMaxPerRule() {
			return this.maxPerRule;
		}

		public void setMaxPerRule(int maxPerRule) {
			this.maxPerRule = maxPerRule;
		}

	}

	/**
	 * The allow and deny lists: subjects (as a rule's key resolves them, e.g. a user id or an API key) and client IP
	 * addresses or CIDR networks (IPv4 and IPv6) that are refused before any rule, or skip the rules.
	 */
	public static class Lists {

		/**
		 * Entries refused before any rule with 'deny-status': subjects, IP addresses or CIDR networks, e.g.
		 * 203.0.113.0/24. More can be added at runtime through POST /actuator/ratelimits/lists/deny.
		 */
		private List<String> deny = new ArrayList<>();

		/**
		 * Entries that skip every rule: subjects, IP addresses or CIDR networks, e.g. 198.51.100.9. More, also for
		 * named rules only, can be added at runtime through POST /actuator/ratelimits/lists/allow.
		 */
		private List<String> allow = new ArrayList<>();

		/**
		 * Maximum number of entries of each list, configured and made at runtime each; the actuator refuses more.
		 */
		private int maxEntries = 1000;

		/**
		 * HTTP status of a request the deny list refuses, between 400 and 599.
		 */
		private int denyStatus = 403;

		/**
		 * How often each instance checks that its copy of the runtime entries is current, in case it missed the
		 * message of a change.
		 */
		private Duration refreshInterval = Duration.ofSeconds(10);

		public List<String> getDeny() {
			return this.deny;
		}

		public void setDeny(List<String> deny) {
			this.deny = deny;
		}

		public List<String> getAllow() {
			return this.allow;
		}

		public void setAllow(List<String> allow) {
			this.allow = allow;
		}

		public int getMaxEntries() {
			return this.maxEntries;
		}

		public void setMaxEntries(int maxEntries) {
			this.maxEntries = maxEntries;
		}

		public int getDenyStatus() {
			return this.denyStatus;
		}

		public void setDenyStatus(int denyStatus) {
			this.denyStatus = denyStatus;
		}

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

	}

	/** Settings of the metrics. */
	/**
	 * The rate limit headers.
	 */
	public static class Headers {

		/**
		 * Which rate limit headers to send: ietf, legacy, both or none.
		 */
		private HeaderStyle style = HeaderStyle.BOTH;

		/**
		 * Whether the IETF headers carry a partition key ('pk'): a Byte Sequence derived from the rule and the
		 * hashed subject, never the subject itself.
		 */
		private boolean partitionKey;

		/**
		 * Secret from which partition keys are derived, at least 16 characters; set the same on every instance that
		 * shares the store. When unset, each instance draws a random one, so its keys differ from the others'.
		 */
		private @Nullable String partitionKeySecret;

		/**
		 * Returns the headers of a style, so that 'ratelimit.headers: ietf' binds as
		 * 'ratelimit.headers.style: ietf'.
		 * @param style the style: ietf, legacy, both or none (any case)
		 * @return the headers
		 */
		public static Headers valueOf(String style) {
			Headers headers = new Headers();
			headers.setStyle(HeaderStyle.valueOf(style.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
			return headers;
		}

		public HeaderStyle getStyle() {
			return this.style;
		}

		public void setStyle(HeaderStyle style) {
			this.style = style;
		}

		public boolean isPartitionKey() {
			return this.partitionKey;
		}

		public void setPartitionKey(boolean partitionKey) {
			this.partitionKey = partitionKey;
		}

		public @Nullable String getPartitionKeySecret() {
			return this.partitionKeySecret;
		}

		public void setPartitionKeySecret(@Nullable String partitionKeySecret) {
			this.partitionKeySecret = partitionKeySecret;
		}

	}

	/** Settings of the Micrometer observations of decisions (docs/observability.md). */
	public static class Observations {

		/**
		 * Whether each rate limit decision is a Micrometer observation ('ratelimit.decision': a timer and, with
		 * tracing, a span under the request's), and each wait for a reserved slot too ('ratelimit.slot.wait').
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Metrics {

		/**
		 * Fraction of a rule's limit at or below which an allowed request counts in ratelimit.near.limit.
		 */
		private double nearLimitThreshold = 0.2;

		/**
		 * Subjects kept per rule by the top offenders view.
		 */
		private int offendersPerRule = 100;

		/**
		 * Window over which the top offenders are counted.
		 */
		private Duration offendersWindow = Duration.ofMinutes(10);

		public double getNearLimitThreshold() {
			return this.nearLimitThreshold;
		}

		public void setNearLimitThreshold(double nearLimitThreshold) {
			this.nearLimitThreshold = nearLimitThreshold;
		}

		public int getOffendersPerRule() {
			return this.offendersPerRule;
		}

		public void setOffendersPerRule(int offendersPerRule) {
			this.offendersPerRule = offendersPerRule;
		}

		public Duration getOffendersWindow() {
			return this.offendersWindow;
		}

		public void setOffendersWindow(Duration offendersWindow) {
			this.offendersWindow = offendersWindow;
		}

	}

	public Map<String, Rule> getRules() {
		return this.rules;
	}

	public void setRules(Map<String, Rule> rules) {
		this.rules = rules;
	}

	/** Where limit state lives. */
	public enum Store {

		/** Redis when a RedisConnectionFactory bean exists, else memory. */
		AUTO,

		/** Redis; start-up fails without a RedisConnectionFactory. */
		REDIS,

		/** This instance's memory. */
		LOCAL

	}

	/** Settings of the servlet filter. */
	public static class Filter {

		/**
		 * Order of the rate limit filter; the default runs right after Spring Security's filter chain so that 'user'
		 * keys see the authenticated principal. With Spring Security, it applies the rules of the
		 * after-authentication phase.
		 */
		private int order = -100 + 10;

		/**
		 * Order of the filter that applies the rules of the before-authentication phase when Spring Security's filter
		 * chain is present; must be below spring.security.filter.order. Default: 10 below it.
		 */
		private @Nullable Integer beforeAuthenticationOrder;

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

		public @Nullable Integer getBeforeAuthenticationOrder() {
			return this.beforeAuthenticationOrder;
		}

		public void setBeforeAuthenticationOrder(@Nullable Integer beforeAuthenticationOrder) {
			this.beforeAuthenticationOrder = beforeAuthenticationOrder;
		}

	}

	/** Settings of the Redis store. */
	public static class Redis {

		/**
		 * How long to wait for Redis before the store counts as failed, independent of the application's Redis
		 * command timeout.
		 */
		private Duration timeout = Duration.ofMillis(100);

		/**
		 * Whether to cap Lettuce's reconnect back-off at one second so that decisions return to Redis quickly after
		 * an outage (applies to the application's Lettuce client resources).
		 */
		private boolean capReconnectDelay = true;

		/**
		 * How often to read Redis's memory ({@code INFO memory}: its {@code maxmemory-policy}, {@code used_memory} and
		 * {@code maxmemory}, every master of a Cluster) for the health details, the metrics and a warning when the
		 * policy may evict rate limit keys; 0 reads it only at start-up and when Redis refuses a write for memory.
		 */
		private Duration memoryCheckInterval = Duration.ofMinutes(1);

		public Duration getMemoryCheckInterval() {
			return this.memoryCheckInterval;
		}

		public void setMemoryCheckInterval(Duration memoryCheckInterval) {
			this.memoryCheckInterval = memoryCheckInterval;
		}

		/**
		 * Whether the store connects through its own copy of the application's Lettuce connection factory whose
		 * connections reject commands while disconnected, so that no check is queued and charged after a reconnect.
		 * Not applied with a static master/replica setup (spring.data.redis.masterreplica.nodes).
		 */
		private boolean ownConnection = true;

		private final Batch batch = new Batch();

		public Batch getBatch() {
			return this.batch;
		}

		public boolean isOwnConnection() {
			return this.ownConnection;
		}

		public void setOwnConnection(boolean ownConnection) {
			this.ownConnection = ownConnection;
		}

		public boolean isCapReconnectDelay() {
			return this.capReconnectDelay;
		}

		public void setCapReconnectDelay(boolean capReconnectDelay) {
			this.capReconnectDelay = capReconnectDelay;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Natural batching of the Redis store's decisions: while its script calls are in flight, requests that arrive wait
	 * and the next call carries them together, each decided all-or-nothing on its own; a lone request goes out at once
	 * (no timer). See docs/engine.md.
	 */
	public static class Batch {

		/** Whether to batch decisions; false sends one script call per decision, at once. */
		private boolean enabled = true;

		/**
		 * How many script calls may be in flight at once (in a Redis Cluster: per master, or per hash slot without
		 * across-slots) before requests wait to share the next one.
		 */
		private int lanes = 2;

		/**
		 * In a Redis Cluster of Redis 7 or later, whether one script call carries the GCRA decisions of one master
		 * whatever their hash slots (its keys then go undeclared, which a Cluster proxy may refuse); false keeps each
		 * call to one hash slot. A Cluster of older servers keeps to one slot by itself.
		 */
		private boolean acrossSlots = true;

		/** The most requests one script call carries. */
		private int maxRequests = 64;

		/** The most checks (rules) one script call carries; a request with more goes alone. */
		private int maxChecks = 256;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getLanes() {
			return this.lanes;
		}

		public boolean isAcrossSlots() {
			return this.acrossSlots;
		}

		public void setAcrossSlots(boolean acrossSlots) {
			this.acrossSlots = acrossSlots;
		}

		public void setLanes(int lanes) {
			this.lanes = lanes;
		}

		public int getMaxRequests() {
			return this.maxRequests;
		}

		public void setMaxRequests(int maxRequests) {
			this.maxRequests = maxRequests;
		}

		public int getMaxChecks() {
			return this.maxChecks;
		}

		public void setMaxChecks(int maxChecks) {
			this.maxChecks = maxChecks;
		}

	}

	/** Settings of the in-memory store (the local store, and the fallback while Redis is unavailable). */
	public static class Local {

		/**
		 * Maximum number of subjects held in memory; the least recently used beyond it start afresh.
		 */
		private long maximumEntries = 100_000;

		public long getMaximumEntries() {
			return this.maximumEntries;
		}

		public void setMaximumEntries(long maximumEntries) {
			this.maximumEntries = maximumEntries;
		}

	}

	/** Settings of the circuit breaker around the Redis store. */
	public static class CircuitBreaker {

		/**
		 * Percentage of failed calls (errors and timeouts) in the sliding window that opens the circuit.
		 */
		private float failureRateThreshold = 50;

		/**
		 * Number of recent calls the failure rate is computed over.
		 */
		private int slidingWindowSize = 20;

		/**
		 * Fewest calls before the failure rate counts.
		 */
		private int minimumNumberOfCalls = 5;

		/**
		 * How long the circuit stays open (rules follow on-store-failure without calling Redis) before probes are
		 * let through; also the Retry-After of requests that fail closed.
		 */
		private Duration waitDurationInOpenState = Duration.ofSeconds(1);

		/**
		 * Number of probe calls while half open.
		 */
		private int permittedNumberOfCallsInHalfOpenState = 3;

		public float getFailureRateThreshold() {
			return this.failureRateThreshold;
		}

		public void setFailureRateThreshold(float failureRateThreshold) {
			this.failureRateThreshold = failureRateThreshold;
		}

		public int getSlidingWindowSize() {
			return this.slidingWindowSize;
		}

		public void setSlidingWindowSize(int slidingWindowSize) {
			this.slidingWindowSize = slidingWindowSize;
		}

		public int getMinimumNumberOfCalls() {
			return this.minimumNumberOfCalls;
		}

		public void setMinimumNumberOfCalls(int minimumNumberOfCalls) {
			this.minimumNumberOfCalls = minimumNumberOfCalls;
		}

		public Duration getWaitDurationInOpenState() {
			return this.waitDurationInOpenState;
		}

		public void setWaitDurationInOpenState(Duration waitDurationInOpenState) {
			this.waitDurationInOpenState = waitDurationInOpenState;
		}

		public int getPermittedNumberOfCallsInHalfOpenState() {
			return this.permittedNumberOfCallsInHalfOpenState;
		}

		public void setPermittedNumberOfCallsInHalfOpenState(int permittedNumberOfCallsInHalfOpenState) {
			this.permittedNumberOfCallsInHalfOpenState = permittedNumberOfCallsInHalfOpenState;
		}

	}

	/** Settings of the local deny cache. */
	public static class DenyCache {

		/**
		 * Whether requests denied for at least 'minimum-wait' are denied again from memory, without a Redis call,
		 * until the wait ends.
		 */
		private boolean enabled = true;

		/**
		 * Shortest wait worth remembering.
		 */
		private Duration minimumWait = Duration.ofMillis(10);

		/**
		 * Most denials remembered.
		 */
		private long maximumEntries = 10_000;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getMinimumWait() {
			return this.minimumWait;
		}

		public void setMinimumWait(Duration minimumWait) {
			this.minimumWait = minimumWait;
		}

		public long getMaximumEntries() {
			return this.maximumEntries;
		}

		public void setMaximumEntries(long maximumEntries) {
			this.maximumEntries = maximumEntries;
		}

	}

	/** One rule. */
	public static class Rule {

		private final Match match = new Match();

		/**
		 * Whose quota a request uses: ip (the client's network, see client-ip), user, api-key, global, endpoint (method
		 * and route template of the handler), path (method and concrete path), header:<Name>, a SpEL template #{...}
		 * over the request, or @beanName (a KeyResolver bean). Join several with '+', e.g. user+endpoint.
		 */
		private String key = "ip";

		/**
		 * Algorithm: gcra, token-bucket, leaky-bucket, fixed-window, sliding-window-log, sliding-window-counter,
		 * concurrency (requests in flight at once, across instances) or distinct (distinct values per subject and
		 * period, see 'distinct'); or adaptive-concurrency, a limit on this instance's requests in progress that
		 * follows their latency.
		 */
		private RuleAlgorithm algorithm = RuleAlgorithm.GCRA;

		private boolean algorithmSet;

		/**
		 * Calendar window of a quota: 'day', 'week' or 'month' in 'zone', reset at the window's first moment (local
		 * midnight, a week's first day, the 1st); takes the place of 'period' and implies algorithm fixed-window.
		 */
		private CalendarPeriod.@Nullable Unit calendar;

		/**
		 * IANA time zone whose calendar the 'calendar' windows follow, e.g. Europe/Berlin.
		 */
		private String zone = "UTC";

		/**
		 * How to find the subject's own time zone for a 'calendar' quota, resolved per request like 'key' and
		 * 'tier-key': header:<Name>, a SpEL template #{...} or @beanName giving an IANA zone id. 'zone' is used when
		 * it gives nothing or a value that is not an IANA zone id.
		 */
		private @Nullable String zoneKey;

		/**
		 * First day of a 'calendar: week' window.
		 */
		private DayOfWeek weekStart = DayOfWeek.MONDAY;

		/**
		 * Name of the store (under ratelimit.stores) that holds this rule's state; default: the application's Redis.
		 */
		private @Nullable String store;

		/**
		 * Requests (units of cost) admitted per period; for concurrency, in flight at once.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the period the limit applies to (not for concurrency).
		 */
		private @Nullable Duration period;

		/**
		 * Longest time a request holds its concurrency slot unless it renews it; then the slot is reclaimed, as after
		 * a crash (concurrency only).
		 */
		private @Nullable Duration leaseTimeout = Duration.ofSeconds(60);

		/**
		 * Bucket capacity of gcra, token-bucket and leaky-bucket: how many units may arrive at once (default: the
		 * limit).
		 */
		private @Nullable Long burst;

		/**
		 * Whether fixed windows start at a per-subject offset, so that clients do not all reset at once.
		 */
		private boolean spreadWindows;

		/**
		 * Warm up keys of a gcra or token-bucket rule after idleness: a key unused for this long is cold and admits
		 * at limit / cold-factor (its burst too), rising to the full rate over this much use. 0 (the default) for none.
		 */
		private Duration warmUp = Duration.ZERO;

		/**
		 * Divide the rate and burst of a cold key by this factor while it warms up, from 1 to 100.
		 */
		private double coldFactor = RateLimitPolicy.DEFAULT_COLD_FACTOR;

		/**
		 * Limit per tier, e.g. free: 100, pro: 10000; a missing or unknown tier gets the rule's limit.
		 */
		private Map<String, Long> tiers = new LinkedHashMap<>();

		/**
		 * Limit per subject that is an exception, written as the rule's key resolves it, e.g. user-42: 1000 (an IP
		 * address or network in brackets, "[198.51.100.0/24]": 50); it replaces the rule's (and the tier's) limit for
		 * that subject only, with the same algorithm and period.
		 */
		private Map<String, Long> exceptions = new LinkedHashMap<>();

		/**
		 * How to find a request's tier: header:<Name>, a SpEL template #{...} or @beanName.
		 */
		private @Nullable String tierKey;

		/**
		 * Units a request costs: an integer or a SpEL template #{...} over the request. With settle (or when the
		 * handler settles from code), the estimate reserved when the request is admitted.
		 */
		private String cost = "1";

		/**
		 * Where the actual cost of a request is found when it ends, to settle its estimate (cost): header:<Name> (a
		 * response header) or a SpEL template #{...} over the response (status, headers). Requests may also settle
		 * from code with RateLimitContext, which wins over this source.
		 */
		private @Nullable String settle;

		/**
		 * Values counted by algorithm distinct, in the syntax of 'key' (e.g. header:X-Username,
		 * #{request.getParameter('username')}, ip): each subject may present at most 'limit' distinct values per
		 * 'period'. Required by distinct, rejected by every other algorithm.
		 */
		private @Nullable String distinct;

		/**
		 * Whether the rule blocks ('enforce') or only observes ('shadow').
		 */
		private RuleMode mode = RuleMode.ENFORCE;

		/**
		 * What to do while the store is unavailable: 'local' enforces the rule in this instance's memory, 'allow'
		 * admits, 'deny' answers 503.
		 */
		private StoreFailureMode onStoreFailure = StoreFailureMode.LOCAL;

		/**
		 * Where the filter applies the rule when Spring Security's filter chain is present: 'auto' applies rules whose
		 * key or tier-key has a 'user' part after authentication and every other rule before it, so that rejected
		 * logins count. A SpEL or bean key that reads the principal needs 'after-authentication'.
		 */
		private RulePhase phase = RulePhase.AUTO;

		/**
		 * HTTP status of the rule's denials: 429 (the client asked too much) or 503 (the server cannot take more).
		 * Default: 503 for a concurrency rule whose key is shared by every client ('global', 'endpoint') and for
		 * adaptive-concurrency, 429 otherwise.
		 */
		private @Nullable Integer status;

		/**
		 * Longest time a request that the rule would deny may wait for a slot reserved for it, instead of being
		 * rejected; 0 rejects at once (gcra, token-bucket and leaky-bucket only).
		 */
		private Duration maxWait = Duration.ZERO;

		/**
		 * How this rule is decided: 'exact', one atomic call to the shared store per request (the default), or
		 * 'local', from this instance's own view of each key, whose admissions are sent to the shared store in
		 * batches (gcra, token-bucket, fixed-window and sliding-window-counter; see docs/consistency.md for the error
		 * bound).
		 */
		private SyncMode sync = SyncMode.EXACT;

		/**
		 * Where the limit holds: 'region' (each region on its own, the default) or 'share' (across the regions of
		 * ratelimit.regions, each enforcing its share) or 'global' (counted in every region, replicated between them).
		 */
		private Scope scope = Scope.REGION;

		/** How often a key's local admissions are sent to the shared store, for 'sync: local'. */
		private Duration syncInterval = Duration.ofMillis(100);

		/**
		 * Unsynchronized units of one key at which a flush is sent at once (and a request that would pass them waits
		 * for it), for 'sync: local'; 10% of the limit, at least 1, when unset.
		 */
		private @Nullable Long syncThreshold;

		/**
		 * Most requests of this rule that may wait for their slot at once in one instance; beyond it, requests are
		 * answered at once as without max-wait.
		 */
		private int maxWaiting = RuleWaiting.DEFAULT_MAX_WAITING;

		private final Adaptive adaptive = new Adaptive();

		private final CountWhen countWhen = new CountWhen();

		public Match getMatch() {
			return this.match;
		}

		public CountWhen getCountWhen() {
			return this.countWhen;
		}

		public Adaptive getAdaptive() {
			return this.adaptive;
		}

		public String getKey() {
			return this.key;
		}

		public void setKey(String key) {
			this.key = key;
		}

		public @Nullable String getDistinct() {
			return this.distinct;
		}

		public void setDistinct(@Nullable String distinct) {
			this.distinct = distinct;
		}

		public RuleAlgorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(RuleAlgorithm algorithm) {
			this.algorithm = algorithm;
			this.algorithmSet = true;
		}

		/** Returns whether the algorithm was configured rather than left at its default. */
		boolean isAlgorithmSet() {
			return this.algorithmSet;
		}

		public CalendarPeriod.@Nullable Unit getCalendar() {
			return this.calendar;
		}

		public void setCalendar(CalendarPeriod.@Nullable Unit calendar) {
			this.calendar = calendar;
		}

		public String getZone() {
			return this.zone;
		}

		public void setZone(String zone) {
			this.zone = zone;
		}

		public @Nullable String getZoneKey() {
			return this.zoneKey;
		}

		public void setZoneKey(@Nullable String zoneKey) {
			this.zoneKey = zoneKey;
		}

		public @Nullable String getStore() {
			return this.store;
		}

		public void setStore(@Nullable String store) {
			this.store = store;
		}

		public DayOfWeek getWeekStart() {
			return this.weekStart;
		}

		public void setWeekStart(DayOfWeek weekStart) {
			this.weekStart = weekStart;
		}

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(@Nullable Duration period) {
			this.period = period;
		}

		public @Nullable Duration getLeaseTimeout() {
			return this.leaseTimeout;
		}

		public void setLeaseTimeout(@Nullable Duration leaseTimeout) {
			this.leaseTimeout = leaseTimeout;
		}

		public @Nullable Long getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Long burst) {
			this.burst = burst;
		}

		public boolean isSpreadWindows() {
			return this.spreadWindows;
		}

		public void setSpreadWindows(boolean spreadWindows) {
			this.spreadWindows = spreadWindows;
		}

		public Duration getWarmUp() {
			return this.warmUp;
		}

		public void setWarmUp(Duration warmUp) {
			this.warmUp = warmUp;
		}

		public double getColdFactor() {
			return this.coldFactor;
		}

		public void setColdFactor(double coldFactor) {
			this.coldFactor = coldFactor;
		}

		public Map<String, Long> getTiers() {
			return this.tiers;
		}

		public void setTiers(Map<String, Long> tiers) {
			this.tiers = tiers;
		}

		public Map<String, Long> getExceptions() {
			return this.exceptions;
		}

		public void setExceptions(Map<String, Long> exceptions) {
			this.exceptions = exceptions;
		}

		public @Nullable String getTierKey() {
			return this.tierKey;
		}

		public void setTierKey(@Nullable String tierKey) {
			this.tierKey = tierKey;
		}

		public @Nullable String getSettle() {
			return this.settle;
		}

		public void setSettle(@Nullable String settle) {
			this.settle = settle;
		}

		public String getCost() {
			return this.cost;
		}

		public void setCost(String cost) {
			this.cost = cost;
		}

		public RuleMode getMode() {
			return this.mode;
		}

		public void setMode(RuleMode mode) {
			this.mode = mode;
		}

		public StoreFailureMode getOnStoreFailure() {
			return this.onStoreFailure;
		}

		public void setOnStoreFailure(StoreFailureMode onStoreFailure) {
			this.onStoreFailure = onStoreFailure;
		}

		public RulePhase getPhase() {
			return this.phase;
		}

		public void setPhase(RulePhase phase) {
			this.phase = phase;
		}

		public @Nullable Integer getStatus() {
			return this.status;
		}

		public void setStatus(@Nullable Integer status) {
			this.status = status;
		}

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public SyncMode getSync() {
			return this.sync;
		}

		public Scope getScope() {
			return this.scope;
		}

		public void setScope(Scope scope) {
			this.scope = scope;
		}

		public void setSync(SyncMode sync) {
			this.sync = sync;
		}

		public Duration getSyncInterval() {
			return this.syncInterval;
		}

		public void setSyncInterval(Duration syncInterval) {
			this.syncInterval = syncInterval;
		}

		public @Nullable Long getSyncThreshold() {
			return this.syncThreshold;
		}

		public void setSyncThreshold(@Nullable Long syncThreshold) {
			this.syncThreshold = syncThreshold;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
		}

		public int getMaxWaiting() {
			return this.maxWaiting;
		}

		public void setMaxWaiting(int maxWaiting) {
			this.maxWaiting = maxWaiting;
		}

	}

	/**
	 * What a rule's {@code algorithm} names: a rate {@link Algorithm} (kept by the store), or
	 * {@link #ADAPTIVE_CONCURRENCY}, which is no rate and never reaches a store.
	 */
	/**
	 * One region of the deployment.
	 */
	public static class Region {

		/**
		 * The part of a {@code scope: share} rule's limit this region enforces, in (0, 1]; the regions without one share
		 * what the others leave equally.
		 */
		private @Nullable Double share;

		/**
		 * The region's Redis, as spring.data.redis.url takes it ({@code redis://[user:password@]host:port[/database]},
		 * {@code rediss://} for SSL), for {@code scope: global}; this region's own entry needs none (its Redis is
		 * spring.data.redis.*). Takes precedence over host, port, username, password and ssl.
		 */
		private @Nullable String url;

		/** The region's Redis host, when no url is given. */
		private @Nullable String host;

		/** The region's Redis port, when no url is given. */
		private int port = 6379;

		/** The user name for the region's Redis, when no url is given. */
		private @Nullable String username;

		/** The password of the region's Redis, when no url is given. */
		private @Nullable String password;

		/** Whether to connect to the region's Redis over SSL, when no url is given. */
		private boolean ssl;

		/** Set only on the {@code replication-interval} entry, which is a duration rather than a region. */
		private @Nullable Duration interval;

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

		public @Nullable Double getShare() {
			return this.share;
		}

		public void setShare(@Nullable Double share) {
			this.share = share;
		}

		public @Nullable String getHost() {
			return this.host;
		}

		public void setHost(@Nullable String host) {
			this.host = host;
		}

		public int getPort() {
			return this.port;
		}

		public void setPort(int port) {
			this.port = port;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public boolean isSsl() {
			return this.ssl;
		}

		public void setSsl(boolean ssl) {
			this.ssl = ssl;
		}

		/**
		 * Returns the entry that {@code ratelimit.regions.replication-interval=<duration>} binds to (the binder converts
		 * a value written directly under {@code ratelimit.regions} with this method).
		 * @param interval the interval, such as {@code 100ms}
		 * @return the entry
		 * @throws IllegalArgumentException when it is not a duration
		 */
		public static Region valueOf(String interval) {
			Region entry = new Region();
			entry.interval = DurationStyle.detectAndParse(interval);
			return entry;
		}

	}

	/** Where a rule's limit holds. */
	public enum Scope {

		/** In each region on its own (each region's Redis counts its own requests): the default. */
		REGION,

		/** Across regions, each region enforcing its share of the limit ({@code ratelimit.regions.<name>.share}). */
		SHARE,

		/**
		 * Across regions: each region counts in its own Redis under its own entry and replicates its entries to the
		 * others every {@code ratelimit.regions.replication-interval}; fixed window and sliding window counter.
		 */
		GLOBAL

	}

	public enum SyncMode {

		/** One atomic call to the shared store per request. */
		EXACT,

		/** From this instance's view of each key, synchronized with the shared store in batches. */
		LOCAL

	}

	/**
	 * Local views of the rules in {@code sync: local} mode.
	 */
	public static class Sync {

		/** Most keys this instance keeps a local view of; the least recently used is flushed, then dropped. */
		private long maxKeys = 100_000;

		public long getMaxKeys() {
			return this.maxKeys;
		}

		public void setMaxKeys(long maxKeys) {
			this.maxKeys = maxKeys;
		}

	}

	public enum RuleAlgorithm {

		/** {@link Algorithm#FIXED_WINDOW}. */
		FIXED_WINDOW,

		/** {@link Algorithm#SLIDING_WINDOW_LOG}. */
		SLIDING_WINDOW_LOG,

		/** {@link Algorithm#SLIDING_WINDOW_COUNTER}. */
		SLIDING_WINDOW_COUNTER,

		/** {@link Algorithm#TOKEN_BUCKET}. */
		TOKEN_BUCKET,

		/** {@link Algorithm#LEAKY_BUCKET}. */
		LEAKY_BUCKET,

		/** {@link Algorithm#GCRA}. */
		GCRA,

		/** {@link Algorithm#CONCURRENCY}. */
		CONCURRENCY,

		/** {@link Algorithm#DISTINCT}. */
		DISTINCT,

		/** A per-instance concurrency limit that follows latency (see {@link Adaptive}). */
		ADAPTIVE_CONCURRENCY;

		/** Returns the rate algorithm of this name, or {@code null} for {@link #ADAPTIVE_CONCURRENCY}. */
		public @Nullable Algorithm rateAlgorithm() {
			return (this != ADAPTIVE_CONCURRENCY) ? Algorithm.valueOf(name()) : null;
		}

	}

	/**
	 * Which outcomes of an admitted request count against the rule: any of the conditions set. Without any, every
	 * admitted request counts. A request consumes its units before it runs and gets them back when it ends with an
	 * outcome that does not count.
	 */
	public static class CountWhen {

		/**
		 * Response statuses that count, e.g. [401, 403] (never true for a '@RateLimited' call).
		 */
		private List<Integer> status = new ArrayList<>();

		/**
		 * Exception types (fully qualified class names) that count when the request or call fails with one of them, a
		 * subtype, or an exception caused by one.
		 */
		private List<String> exceptions = new ArrayList<>();

		/**
		 * SpEL expression over the outcome that says whether it counts, e.g. #{status >= 500}; reads status (null for
		 * a call) and exception (null when there was none).
		 */
		private @Nullable String expression;

		public List<Integer> getStatus() {
			return this.status;
		}

		public void setStatus(List<Integer> status) {
			this.status = status;
		}

		public List<String> getExceptions() {
			return this.exceptions;
		}

		public void setExceptions(List<String> exceptions) {
			this.exceptions = exceptions;
		}

		public @Nullable String getExpression() {
			return this.expression;
		}

		public void setExpression(@Nullable String expression) {
			this.expression = expression;
		}

		/** Returns whether any condition is set. */
		boolean hasConditions() {
			return !this.status.isEmpty() || !this.exceptions.isEmpty()
					|| (this.expression != null && !this.expression.isBlank());
		}

	}

	/** Settings of an adaptive-concurrency rule; the limit adapts between min-limit and max-limit. */
	public static class Adaptive {

		/**
		 * How the limit follows latency: gradient2 (default), vegas or aimd.
		 */
		private @Nullable AdaptiveStrategy strategy;

		/**
		 * Limit before any latency was measured (default 20).
		 */
		private @Nullable Integer initialLimit;

		/**
		 * Lowest limit (default 1).
		 */
		private @Nullable Integer minLimit;

		/**
		 * Highest limit (default 200).
		 */
		private @Nullable Integer maxLimit;

		public @Nullable AdaptiveStrategy getStrategy() {
			return this.strategy;
		}

		public void setStrategy(@Nullable AdaptiveStrategy strategy) {
			this.strategy = strategy;
		}

		public @Nullable Integer getInitialLimit() {
			return this.initialLimit;
		}

		public void setInitialLimit(@Nullable Integer initialLimit) {
			this.initialLimit = initialLimit;
		}

		public @Nullable Integer getMinLimit() {
			return this.minLimit;
		}

		public void setMinLimit(@Nullable Integer minLimit) {
			this.minLimit = minLimit;
		}

		public @Nullable Integer getMaxLimit() {
			return this.maxLimit;
		}

		public void setMaxLimit(@Nullable Integer maxLimit) {
			this.maxLimit = maxLimit;
		}

	}

	/** Which requests a rule applies to. */
	public static class Match {

		/**
		 * Whether the servlet filter applies the rule to matching requests; false for rules used only by
		 * '@RateLimited'.
		 */
		private boolean enabled = true;

		/**
		 * Path patterns (PathPattern syntax, e.g. /api/**) the rule applies to; empty means every path.
		 */
		private List<String> paths = new ArrayList<>();

		/**
		 * Path patterns excluded from the rule.
		 */
		private List<String> excludePaths = new ArrayList<>();

		/**
		 * HTTP methods the rule applies to; empty means every method.
		 */
		private List<RequestMethod> methods = new ArrayList<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public List<String> getPaths() {
			return this.paths;
		}

		public void setPaths(List<String> paths) {
			this.paths = paths;
		}

		public List<String> getExcludePaths() {
			return this.excludePaths;
		}

		public void setExcludePaths(List<String> excludePaths) {
			this.excludePaths = excludePaths;
		}

		public List<RequestMethod> getMethods() {
			return this.methods;
		}

		public void setMethods(List<RequestMethod> methods) {
			this.methods = methods;
		}

	}

}
