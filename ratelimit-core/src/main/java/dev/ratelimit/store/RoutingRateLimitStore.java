package dev.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Function;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.Lease;
import org.jspecify.annotations.Nullable;

/**
 * Several named stores behind one: each rule's checks go to the store its rule names (e.g. billing quotas to a
 * persistent Redis, traffic limits to a volatile one), and the stores are this store's {@link StoreNodes nodes}, so a
 * {@code ResilientRateLimiter} over it has a circuit breaker, fallback and health per store: a request whose checks
 * are all on a healthy store is decided there while another store is down.
 * <p>
 * A request whose checks are on several stores is decided by each store for its checks, concurrently; it is admitted
 * only when every store admits its part. When one denies (or fails), what the others admitted is refunded and their
 * leases released, and their checks report their state as inspected with cost 0, as if the request had been decided
 * in one call. That is not atomic across stores (a concurrent request may see the units in between), as in a Redis
 * Cluster whose checks are in several slots.
 * <p>
 * A store that is a Redis Cluster keeps its own masters out of sight here: its failure opens its store's circuit as
 * a whole.
 */
public final class RoutingRateLimitStore implements RateLimitStore {

	private final Map<String, RateLimitStore> stores;

	private final String defaultStore;

	private final Function<String, @Nullable String> storeOfRule;

	private final Nodes nodes = new Nodes();

	/**
	 * @param stores the stores by name, the default one among them
	 * @param defaultStore the name of the store of rules that name none
	 * @param storeOfRule the store a rule names, by rule name, or {@code null} for the default one
	 */
	public RoutingRateLimitStore(Map<String, RateLimitStore> stores, String defaultStore,
			Function<String, @Nullable String> storeOfRule) {
		this.stores = new LinkedHashMap<>(stores);
		this.defaultStore = defaultStore;
		this.storeOfRule = storeOfRule;
		if (!this.stores.containsKey(defaultStore)) {
			throw new IllegalArgumentException("the default store '" + defaultStore + "' is not among " + stores.keySet());
		}
	}

	/** Returns the stores by name. */
	public Map<String, RateLimitStore> stores() {
		return Map.copyOf(this.stores);
	}

	/** Returns the name of the store that holds a rule's state. */
	public String storeOf(String rule) {
		String named = this.storeOfRule.apply(rule);
		return (named != null && this.stores.containsKey(named)) ? named : this.defaultStore;
	}

	@Override
	public List<Decision> evaluate(List<RateLimitCheck> checks) {
		return evaluateAsync(checks).join();
	}

	@Override
	public List<Decision> peek(List<RateLimitCheck> checks) {
		return peekAsync(checks).join();
	}

	/**
	 * Peeks at each store's part; when one part would be denied, the parts that would be admitted are inspected with
	 * cost 0, as the evaluation would report them.
	 */
	@Override
	public CompletableFuture<List<Decision>> peekAsync(List<RateLimitCheck> checks) {
		return route(checks, (check) -> check.policy().name(), RateLimitStore::peekAsync).thenCompose((peeked) -> {
			if (groups(checks, (check) -> check.policy().name()).size() <= 1
					|| new Verdict(checks, peeked).allowed()) {
				return CompletableFuture.completedFuture(peeked);
			}
			List<RateLimitCheck> inspections = new ArrayList<>(checks.size());
			for (int i = 0; i < checks.size(); i++) {
				inspections.add(peeked.get(i).allowed() ? checks.get(i).withCost(0) : checks.get(i));
			}
			return route(inspections, (check) -> check.policy().name(), RateLimitStore::peekAsync);
		});
	}

	@Override
	public CompletableFuture<List<Decision>> evaluateAsync(List<RateLimitCheck> checks) {
		Map<String, List<Integer>> groups = groups(checks, (check) -> check.policy().name());
		if (groups.size() <= 1) {
			String only = groups.isEmpty() ? this.defaultStore : groups.keySet().iterator().next();
			return blamed(only, this.stores.get(only).evaluateAsync(checks));
		}
		Map<String, List<RateLimitCheck>> parts = new LinkedHashMap<>();
		Map<String, CompletableFuture<List<Decision>>> calls = new LinkedHashMap<>();
		groups.forEach((store, indexes) -> {
			List<RateLimitCheck> part = indexes.stream().map(checks::get).toList();
			parts.put(store, part);
			calls.put(store, blamed(store, this.stores.get(store).evaluateAsync(part)));
		});
		return CompletableFuture.allOf(calls.values().stream().map((call) -> call.handle((v, ex) -> null))
			.toArray(CompletableFuture[]::new)).thenCompose((ignored) -> settle(checks, groups, parts, calls));
	}

	/** Combines the parts: all admitted, or the admitted ones given back. */
	private CompletableFuture<List<Decision>> settle(List<RateLimitCheck> checks, Map<String, List<Integer>> groups,
			Map<String, List<RateLimitCheck>> parts, Map<String, CompletableFuture<List<Decision>>> calls) {
		Throwable failure = null;
		boolean denied = false;
		Map<String, Verdict> verdicts = new LinkedHashMap<>();
		for (Map.Entry<String, CompletableFuture<List<Decision>>> call : calls.entrySet()) {
			if (call.getValue().isCompletedExceptionally()) {
				failure = (failure != null) ? failure : cause(call.getValue());
				continue;
			}
			Verdict verdict = new Verdict(parts.get(call.getKey()), call.getValue().join());
			verdicts.put(call.getKey(), verdict);
			denied |= !verdict.allowed();
		}
		Decision[] decisions = new Decision[checks.size()];
		if (failure == null && !denied) {
			verdicts.forEach((store, verdict) -> place(decisions, groups.get(store), verdict.decisions()));
			return CompletableFuture.completedFuture(Arrays.asList(decisions));
		}
		List<CompletableFuture<?>> undone = new ArrayList<>();
		for (Map.Entry<String, Verdict> each : verdicts.entrySet()) {
			String store = each.getKey();
			Verdict verdict = each.getValue();
			if (!verdict.allowed()) {
				place(decisions, groups.get(store), verdict.decisions());
				continue;
			}
			RateLimitStore target = this.stores.get(store);
			List<RateLimitCheck> part = parts.get(store);
			List<RateLimitCheck> inspections = new ArrayList<>(part.size());
			for (int i = 0; i < part.size(); i++) {
				// an admitting check reports its state without the request; a denying one (a shadow) its denial
				inspections.add(verdict.decisions().get(i).allowed() ? part.get(i).withCost(0) : part.get(i));
			}
			CompletableFuture<?> refunded = verdict.consumptions().isEmpty() ? CompletableFuture.completedFuture(null)
					: target.refundAsync(verdict.consumptions());
			CompletableFuture<?> released = verdict.leases().isEmpty() ? CompletableFuture.completedFuture(null)
					: target.releaseAsync(verdict.leases());
			undone.add(CompletableFuture.allOf(refunded, released)
				.thenCompose((ignored) -> target.peekAsync(inspections))
				.thenAccept((inspected) -> place(decisions, groups.get(store), inspected)));
		}
		Throwable failed = failure;
		return CompletableFuture.allOf(undone.toArray(CompletableFuture[]::new)).thenApply((ignored) -> {
			if (failed != null) {
				throw (failed instanceof CompletionException completion) ? completion : new CompletionException(failed);
			}
			return Arrays.asList(decisions);
		});
	}

	@Override
	public CompletableFuture<List<Decision>> refundAsync(List<Consumption> consumptions) {
		return route(consumptions, (consumption) -> consumption.policy().name(), RateLimitStore::refundAsync);
	}

	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		return refundAsync(consumptions).join();
	}

	@Override
	public CompletableFuture<List<Decision>> settleAsync(List<Settlement> settlements) {
		return route(settlements, (settlement) -> settlement.consumption().policy().name(),
				RateLimitStore::settleAsync);
	}

	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		return settleAsync(settlements).join();
	}

	@Override
	public CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
		return route(leases, (lease) -> lease.policy().name(), RateLimitStore::releaseAsync);
	}

	@Override
	public List<Boolean> release(List<Lease> leases) {
		return releaseAsync(leases).join();
	}

	@Override
	public CompletableFuture<List<Boolean>> renewAsync(List<Lease> leases) {
		return route(leases, (lease) -> lease.policy().name(), RateLimitStore::renewAsync);
	}

	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return renewAsync(leases).join();
	}

	@Override
	public CompletableFuture<Void> cancelAsync(List<RateLimitCheck> checks) {
		return route(checks, (check) -> check.policy().name(),
				(store, part) -> store.cancelAsync(part).thenApply((ignored) -> part.stream().map((c) -> (Void) null)
					.toList()))
			.thenApply((ignored) -> null);
	}

	@Override
	public void cancel(List<RateLimitCheck> checks) {
		cancelAsync(checks).join();
	}

	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		this.stores.get(storeOf(policy.name())).reset(policy, subject);
	}

	/** Returns the longest timeout of the stores, or {@code null} when none has one. */
	@Override
	public @Nullable Duration timeout() {
		return this.stores.values().stream().map(RateLimitStore::timeout).filter(Objects::nonNull)
			.max(Duration::compareTo).orElse(null);
	}

	/** The stores, by name: each its own circuit breaker, fallback and health. */
	@Override
	public StoreNodes nodes() {
		return this.nodes;
	}

	private <T, R> CompletableFuture<List<R>> route(List<T> items, Function<T, String> rule,
			BiFunction<RateLimitStore, List<T>, CompletableFuture<List<R>>> call) {
		Map<String, List<Integer>> groups = groups(items, rule);
		if (groups.size() <= 1) {
			String only = groups.isEmpty() ? this.defaultStore : groups.keySet().iterator().next();
			return blamed(only, call.apply(this.stores.get(only), items));
		}
		@SuppressWarnings("unchecked")
		R[] results = (R[]) new Object[items.size()];
		List<CompletableFuture<?>> calls = new ArrayList<>();
		groups.forEach((store, indexes) -> calls.add(blamed(store,
				call.apply(this.stores.get(store), indexes.stream().map(items::get).toList()))
			.thenAccept((part) -> place(results, indexes, part))));
		return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
			.thenApply((ignored) -> Arrays.asList(results));
	}

	private <T> Map<String, List<Integer>> groups(List<T> items, Function<T, String> rule) {
		Map<String, List<Integer>> groups = new LinkedHashMap<>();
		for (int i = 0; i < items.size(); i++) {
			groups.computeIfAbsent(storeOf(rule.apply(items.get(i))), (store) -> new ArrayList<>()).add(i);
		}
		return groups;
	}

	private static <R> void place(R[] results, List<Integer> indexes, List<R> part) {
		for (int i = 0; i < indexes.size(); i++) {
			results[indexes.get(i)] = part.get(i);
		}
	}

	/** Marks a store's failure with its name, so that it is blamed on that store only. */
	private static <T> CompletableFuture<T> blamed(String store, CompletableFuture<T> call) {
		return call.exceptionallyCompose((ex) -> {
			Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
			return CompletableFuture.failedFuture((cause instanceof NamedStoreException) ? cause
					: new NamedStoreException(store, cause));
		});
	}

	private static Throwable cause(CompletableFuture<?> failed) {
		try {
			failed.join();
			throw new IllegalStateException("not failed");
		}
		catch (CompletionException ex) {
			return (ex.getCause() != null) ? ex.getCause() : ex;
		}
		catch (java.util.concurrent.CancellationException ex) {
			return ex;
		}
	}

	/** A named store's failure. */
	public static final class NamedStoreException extends RateLimitStoreException {

		private final String store;

		NamedStoreException(String store, Throwable cause) {
			super("store '" + store + "' failed: " + cause.getMessage(), cause);
			this.store = store;
		}

		/** Returns the name of the store that failed. */
		public String store() {
			return this.store;
		}

	}

	private final class Nodes implements StoreNodes {

		@Override
		public List<String> nodesOf(List<RateLimitCheck> checks) {
			List<String> touched = new ArrayList<>();
			for (RateLimitCheck check : checks) {
				String store = storeOf(check.policy().name());
				if (!touched.contains(store)) {
					touched.add(store);
				}
			}
			return touched.isEmpty() ? List.of(RoutingRateLimitStore.this.defaultStore) : touched;
		}

		@Override
		public Map<String, String> serving() {
			Map<String, String> serving = new LinkedHashMap<>();
			RoutingRateLimitStore.this.stores.keySet().forEach((store) -> serving.put(store, "store '" + store + "'"));
			return serving;
		}

		@Override
		public Set<String> blame(Throwable failure, List<String> touched) {
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				if (cause instanceof NamedStoreException named && touched.contains(named.store())) {
					return Set.of(named.store());
				}
			}
			return Set.copyOf(touched);
		}

	}

}
