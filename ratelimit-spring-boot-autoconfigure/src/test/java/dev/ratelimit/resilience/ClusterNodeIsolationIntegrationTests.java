package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.actuate.RateLimitHealthIndicator;
import dev.ratelimit.actuate.RateLimitsEndpoint;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.redis.RedisBinary;
import dev.ratelimit.test.redis.RedisCluster;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.web.HttpTestApplication;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of 3 masters with a replica each loses one master (SIGKILL) under 8 HTTP clients whose requests
 * carry keys on every master. Each master has its own circuit breaker: requests whose keys live on the healthy masters
 * keep being decided by Redis while the killed master's replica takes over; requests touching the killed master fall
 * back as their rules say (a request with keys on both falls back as a whole); health names the failed master; the
 * outage is logged once for that master only; and, after the killed master has rejoined as a replica, no key is
 * charged in Redis more than Redis's decisions admitted, give or take the requests on it in flight when the master
 * died (which may have run there without their reply ever arriving).
 * <p>
 * With {@code cluster-require-full-coverage no} on the nodes, at least 95% of the decisions for keys on the healthy
 * masters between the kill and the moment Redis decides the killed master's keys again come from Redis. With Redis's
 * default {@code yes} every master answers {@code CLUSTERDOWN} while the killed one is marked failed: that share is
 * only measured (logged).
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterNodeIsolationIntegrationTests {

	private static final Log logger = LogFactory.getLog(ClusterNodeIsolationIntegrationTests.class);

	private static final List<String> RULES = List.of("nodes-local", "nodes-allow", "nodes-deny");

	private static final Map<String, String> PATH_OF_RULE = Map.of("nodes-local", "/hello", "nodes-allow", "/open",
			"nodes-deny", "/retry");

	private static final int SUBJECTS = 12;

	private static final int REQUESTS_PER_PHASE = 300;

	@Test
	void healthyMastersKeepDecidingWhileAnotherFailsOverWithoutFullCoverage(CapturedOutput output) throws Exception {
		Outcome outcome = failOver(false, output);
		assertThat(outcome.healthyShare()).as("share of Redis decisions for keys on the healthy masters during the"
				+ " failover (" + outcome.healthyStore + " by Redis, " + outcome.healthyFallback + " by the fallback)")
			.isGreaterThanOrEqualTo(0.95);
	}

	@Test
	void withFullCoverageRequiredEveryMasterRefusesUntilThePromotion(CapturedOutput output) throws Exception {
		Outcome outcome = failOver(true, output);
		logger.info("cluster-require-full-coverage yes: " + outcome.healthyStore + " Redis and "
				+ outcome.healthyFallback + " fallback decisions for keys on the healthy masters during the failover"
				+ String.format(" (%.1f%% by Redis)", 100 * outcome.healthyShare()));
	}

	/**
	 * Kills the master of some keys under load, lets its replica take over, restarts it as a replica, and asserts
	 * what holds with or without full coverage required.
	 */
	private Outcome failOver(boolean requireFullCoverage, CapturedOutput output) throws Exception {
		Accounting accounting = new Accounting();
		try (RedisCluster cluster = RedisCluster.start(RedisBinary.locate(), 3, 1, requireFullCoverage);
				ConfigurableApplicationContext app = start(cluster, accounting)) {
			ResilientRateLimiter limiter = (ResilientRateLimiter) app.getBean(RateLimiter.class);
			RedisRateLimitStore store = app.getBean(RedisRateLimitStore.class);
			// each key's master before the kill; the victim is the master of the first deny key
			RedisServerProcess victim = cluster.masterForKey(key(store, "nodes-deny", "s0"));
			String victimAddress = victim.host() + ":" + victim.port();
			int victimSlot = SlotHash.getSlot(key(store, "nodes-deny", "s0"));
			List<String> paths = new ArrayList<>();
			for (String rule : List.of("nodes-local", "nodes-allow", "nodes-deny", "span-k", "span-j")) {
				for (int s = 0; s < SUBJECTS; s++) {
					String subject = "s" + s;
					accounting.onVictim.put(rule + ":" + subject,
							cluster.masterForKey(key(store, rule, subject)).equals(victim));
					if (PATH_OF_RULE.containsKey(rule)) {
						paths.add(PATH_OF_RULE.get(rule) + "?k=" + subject);
					}
				}
			}
			String healthySubject = null;
			for (int s = 0; s < SUBJECTS && healthySubject == null; s++) {
				healthySubject = accounting.onVictim.get("span-j:s" + s) ? null : "s" + s;
			}
			assertThat(accounting.onVictim.values()).as("keys on the victim and on the other masters")
				.contains(true, false);
			// requests whose two checks live on the victim and on a healthy master
			int spanning = 0;
			for (int s = 0; s < SUBJECTS && spanning < 4; s++) {
				if (accounting.onVictim.get("span-k:s" + s) && healthySubject != null) {
					paths.add("/composite/a?k=s" + s + "&j=" + healthySubject);
					spanning++;
				}
			}
			assertThat(spanning).as("requests spanning the victim and a healthy master").isPositive();
			long killedAt;
			long killReturnedAt;
			long promotedAt;
			long recoveredAt;
			long rejoinedAt;
			int logFrom;
			Map<String, Object> healthWhileDown;
			RateLimitsEndpoint.RateLimitsDescriptor endpointWhileDown;
			Map<String, StoreNodeStatus> nodesWhileDown;
			StoreState stateWhileDown;
			List<OutageLoad.Sample> samples;
			// connected, and no NOSCRIPT round trips, before the load: the first connection to a Cluster can take
			// longer than the limiter's timeout on a loaded machine (its deny requests would answer 503)
			await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
				store.loadScripts();
				return true;
			});
			try (OutageLoad load = new OutageLoad(OutageLoad.port(app), paths, 8)) {
				load.awaitRequests(REQUESTS_PER_PHASE, 0);
				assertThat(limiter.state()).isEqualTo(StoreState.REDIS);
				logFrom = output.getOut().length();
				killedAt = System.nanoTime();
				accounting.start();
				victim.kill();
				killReturnedAt = System.nanoTime();
				// the victim's breaker opens (or, with full coverage required, CLUSTERDOWN is not blamed on anyone)
				await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20))
					.until(() -> limiter.state() == StoreState.PARTIAL
							|| !cluster.masterForSlot(victimSlot).equals(victim));
				stateWhileDown = limiter.state();
				nodesWhileDown = limiter.nodes();
				healthWhileDown = app.getBean(RateLimitHealthIndicator.class).health().getDetails();
				endpointWhileDown = app.getBean(RateLimitsEndpoint.class).rateLimits();
				await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
					.until(() -> !cluster.masterForSlot(victimSlot).equals(victim));
				promotedAt = System.nanoTime();
				await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
					.until(() -> accounting.victimBackAt.get() != 0);
				recoveredAt = accounting.victimBackAt.get();
				load.awaitRequests(REQUESTS_PER_PHASE, recoveredAt);
				// the killed master rejoins, as a replica of the node that took over its slots
				cluster.restartStoppedNodes();
				rejoinedAt = System.nanoTime();
				load.awaitRequests(REQUESTS_PER_PHASE, rejoinedAt);
				samples = load.samples();
			}
			logger.info("Cluster failover (cluster-require-full-coverage " + (requireFullCoverage ? "yes" : "no")
					+ "): promoted " + millis(promotedAt - killedAt) + " ms after the kill, the killed master's keys"
					+ " decided by Redis again " + millis(recoveredAt - promotedAt) + " ms after the promotion; "
					+ accounting.healthyStore + " Redis and " + accounting.healthyFallback + " fallback decisions for"
					+ " keys on the healthy masters in between; " + accounting.spanningFallback + " spanning requests"
					+ " fell back; p99 " + OutageLoad.p99Millis(samples) + " ms");
			assertThat(stateWhileDown == StoreState.PARTIAL || requireFullCoverage)
				.as("one failed master of three: the store is partly available (" + stateWhileDown + ")")
				.isTrue();
			if (stateWhileDown == StoreState.PARTIAL) {
				assertThat(nodesWhileDown.values()).filteredOn((node) -> node.state() == StoreState.FALLBACK)
					.as("the failed master, named in the limiter's status")
					.singleElement()
					.satisfies((node) -> assertThat(node.description()).contains(victimAddress));
				assertThat(healthWhileDown).containsEntry("state", "partial");
				assertThat(healthWhileDown.get("unavailableNodes")).asString().contains(victimAddress);
				assertThat(endpointWhileDown.state()).isEqualTo("partial");
				assertThat(endpointWhileDown.nodes()).as("the ratelimits endpoint shows every master").hasSize(3);
				assertThat(endpointWhileDown.nodes().values()).filteredOn((node) -> node.state().equals("fallback"))
					.singleElement()
					.satisfies((node) -> assertThat(node.node()).contains(victimAddress));
			}
			assertThat(samples).filteredOn((s) -> !s.path().startsWith("/retry"))
				.as("local and allow rules never answer 5xx")
				.allMatch((s) -> s.status() == 200);
			assertThat(samples).filteredOn((s) -> s.status() != 200)
				.as("only deny rules answer otherwise: 503 with Retry-After, only for keys on the killed master"
						+ " (or, with full coverage required, while it is marked failed), only during the failover")
				.allMatch((s) -> s.path().startsWith("/retry") && s.status() == 503 && s.retryAfter()
						&& (requireFullCoverage || accounting.onVictim.get("nodes-deny:" + subjectOf(s.path())))
						&& s.startNanos() > killedAt - Duration.ofSeconds(1).toNanos() && s.startNanos() < rejoinedAt);
			assertThat(samples).filteredOn((s) -> s.path().startsWith("/retry") && s.status() == 200)
				.as("a deny rule admits only what Redis admitted: no over-admission")
				.hasSizeLessThanOrEqualTo(accounting.admittedByRedis.entrySet().stream()
					.filter((entry) -> entry.getKey().startsWith("nodes-deny:"))
					.mapToInt((entry) -> entry.getValue().get())
					.sum());
			List<String> victimLines = lines(output, logFrom, "Rate limit store node " + victimAddress + " slots");
			assertThat(victimLines).filteredOn((line) -> line.contains(" unavailable ("))
				.as("the killed master's outage, logged once when it began")
				.hasSize(1);
			assertThat(victimLines).filteredOn((line) -> line.contains(" recovered after "))
				.as("and at most once when it ended")
				.hasSizeLessThanOrEqualTo(1);
			assertThat(lines(output, logFrom, "Rate limit store")).filteredOn((line) -> line.contains(" unavailable ("))
				.as("only the killed master is logged unavailable (CLUSTERDOWN replies open no breaker)")
				.allMatch((line) -> line.contains(victimAddress));
			assertThat(accounting.spanningFallback.get()).as("spanning requests fell back as a whole")
				.isPositive();
			// a request in flight when the master died may have run there and reached its replica without its reply
			// ever reaching the limiter: the one charge no client can give back (IssuedCommands), at most one per
			// such request and key
			Map<String, Long> inFlightAtKill = samples.stream()
				.filter((s) -> s.startNanos() < killReturnedAt && s.startNanos() + s.latencyNanos() > killedAt)
				.flatMap((s) -> keysOf(s.path()).stream())
				.collect(Collectors.groupingBy((key) -> key, Collectors.counting()));
			Map<String, String> overCharged = overCharged(cluster, store, accounting, inFlightAtKill);
			assertThat(overCharged).as("keys charged in Redis more than Redis's decisions admitted and the requests in flight at the kill")
				.isEmpty();
			return new Outcome(logFrom, victimAddress, accounting.healthyStore.get(),
					accounting.healthyFallback.get());
		}
	}

	private static String subjectOf(String path) {
		return path.substring(path.indexOf("k=") + 2);
	}

	/** Returns the keys ({@code rule:subject}) a request path checks. */
	private static List<String> keysOf(String path) {
		if (path.startsWith("/composite/a?")) {
			String query = path.substring(path.indexOf('?') + 1);
			String k = query.substring(2, query.indexOf('&'));
			String j = query.substring(query.indexOf("&j=") + 3);
			return List.of("span-k:" + k, "span-j:" + j);
		}
		String route = path.substring(0, path.indexOf('?'));
		return PATH_OF_RULE.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().equals(route))
			.map((entry) -> entry.getKey() + ":" + subjectOf(path))
			.toList();
	}

	private static long millis(long nanos) {
		return Duration.ofNanos(nanos).toMillis();
	}

	private static String key(RedisRateLimitStore store, String rule, String subject) {
		return store.key(RateLimitPolicy.of(rule, Algorithm.FIXED_WINDOW, 1, Duration.ofHours(1)), subject);
	}

	/**
	 * Returns, for each key whose count in Redis exceeds the requests Redis admitted and those in flight on the key
	 * when the master was killed, the numbers.
	 */
	private static Map<String, String> overCharged(RedisCluster cluster, RedisRateLimitStore store,
			Accounting accounting, Map<String, Long> inFlightAtKill) {
		Map<String, String> over = new TreeMap<>();
		RedisClusterClient client = RedisClusterClient
			.create(cluster.seedUris().stream().map(RedisURI::create).toList());
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			for (String ruleAndSubject : accounting.onVictim.keySet()) {
				String rule = ruleAndSubject.substring(0, ruleAndSubject.indexOf(':'));
				String subject = ruleAndSubject.substring(ruleAndSubject.indexOf(':') + 1);
				String state = connection.sync().get(key(store, rule, subject));
				long charged = (state != null) ? Long.parseLong(state.split(" ")[1]) : 0;
				int admitted = accounting.admittedByRedis.getOrDefault(ruleAndSubject, new AtomicInteger()).get();
				long inFlight = inFlightAtKill.getOrDefault(ruleAndSubject, 0L);
				if (charged > admitted + inFlight) {
					over.put(ruleAndSubject, charged + " charged, " + admitted + " admitted, " + inFlight
							+ " in flight at the kill");
				}
			}
		}
		finally {
			client.shutdown();
		}
		return over;
	}

	private static List<String> lines(CapturedOutput output, int from, String text) {
		return output.getOut().substring(from).lines().filter((line) -> line.contains(text)).toList();
	}

	private static ConfigurableApplicationContext start(RedisCluster cluster, RateLimitListener listener) {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-cluster-test", "server.port=0",
					"spring.data.redis.cluster.nodes=" + String.join(",", cluster.seedUris().stream()
						.map((uri) -> uri.replaceFirst("^redis://", ""))
						.toList()),
					"spring.data.redis.lettuce.cluster.refresh.period=1s",
					"management.endpoints.web.exposure.include=health,ratelimits",
					"logging.level.dev.ratelimit=WARN",
					"logging.level." + ClusterNodeIsolationIntegrationTests.class.getName() + "=INFO")
			.initializers((ConfigurableApplicationContext context) -> context.getBeanFactory()
				.registerSingleton("clusterTestListener", listener))
			.run();
	}

	/** What the test measured. */
	private record Outcome(int logFrom, String victimAddress, int healthyStore, int healthyFallback) {

		double healthyShare() {
			int all = this.healthyStore + this.healthyFallback;
			return (all == 0) ? 0 : (double) this.healthyStore / all;
		}

	}

	/**
	 * Counts, per key, what Redis's decisions admitted; and, between the kill and the first Redis decision of a key
	 * on the killed master after it, who decided the requests whose keys all live on healthy masters.
	 */
	private static final class Accounting implements RateLimitListener {

		/** Whether each key ({@code rule:subject}) lived on the killed master before the kill. */
		private final Map<String, Boolean> onVictim = new ConcurrentHashMap<>();

		private final Map<String, AtomicInteger> admittedByRedis = new ConcurrentHashMap<>();

		private final AtomicBoolean counting = new AtomicBoolean();

		private final AtomicInteger healthyStore = new AtomicInteger();

		private final AtomicInteger healthyFallback = new AtomicInteger();

		private final AtomicInteger spanningFallback = new AtomicInteger();

		private final AtomicLong victimBackAt = new AtomicLong();

		/** Whether a request with a key on the killed master fell back after the kill: the outage was seen. */
		private final AtomicBoolean victimFellBack = new AtomicBoolean();

		void start() {
			this.counting.set(true);
		}

		@Override
		public void onVerdict(Verdict verdict, Source source) {
			Set<Boolean> where = new HashSet<>();
			for (int i = 0; i < verdict.checks().size(); i++) {
				RateLimitCheck check = verdict.checks().get(i);
				String key = check.policy().name() + ":" + check.subject();
				where.add(this.onVictim.getOrDefault(key, false));
				if (source == Source.STORE && verdict.allowed() && verdict.decisions().get(i).allowed()) {
					this.admittedByRedis.computeIfAbsent(key, (ignored) -> new AtomicInteger()).incrementAndGet();
				}
			}
			if (!this.counting.get()) {
				return;
			}
			if (where.contains(true)) {
				if (source == Source.FALLBACK) {
					this.victimFellBack.set(true);
				}
				if (source == Source.STORE && !where.contains(false) && this.victimFellBack.get()) {
					this.victimBackAt.compareAndSet(0, System.nanoTime());
					this.counting.set(false);
				}
				else if (source == Source.FALLBACK && where.contains(false)) {
					this.spanningFallback.incrementAndGet();
				}
				return;
			}
			if (source == Source.STORE) {
				this.healthyStore.incrementAndGet();
			}
			else if (source == Source.FALLBACK) {
				this.healthyFallback.incrementAndGet();
			}
		}

	}

}
