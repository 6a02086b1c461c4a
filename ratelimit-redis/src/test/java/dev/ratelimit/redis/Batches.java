package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.ratelimit.RateLimitCheck;

/**
 * Runs chosen batches through the scripts' batch entry directly (the store forms its batches by itself), for tests
 * that need a given batch.
 */
final class Batches {

	private final ScriptsInUse scripts = new ScriptsInUse();

	private final IssuedCommands commands;

	private final RedisRateLimitStore keys;

	private final Supplier<String> leaseIds;

	/**
	 * @param commands where to run the scripts
	 * @param keys names the keys (its prefix)
	 * @param leaseIds the lease ids of the evaluations that acquire leases, in order
	 */
	Batches(IssuedCommands commands, RedisRateLimitStore keys, Supplier<String> leaseIds) {
		this.commands = commands;
		this.keys = keys;
		this.leaseIds = leaseIds;
		CompletableFuture.allOf(this.scripts.general().load(commands), this.scripts.gcra().load(commands)).join();
	}

	/**
	 * Runs one batch in one script call ({@code gcra.lua} when every request can run it).
	 * @param requests the requests, in batch order
	 * @param peeks for each request, whether it is a peek
	 * @param now the explicit time of the call
	 * @return one reply per request
	 */
	List<RateLimitScript.Reply> run(List<List<RateLimitCheck>> requests, List<Boolean> peeks, long now) {
		List<BatchLane.Request> batch = new ArrayList<>();
		boolean gcra = true;
		for (int q = 0; q < requests.size(); q++) {
			List<RateLimitCheck> request = requests.get(q);
			RateLimitScript.Mode mode = peeks.get(q) ? RateLimitScript.Mode.PEEK : RateLimitScript.Mode.EVALUATE;
			String leaseId = (!peeks.get(q) && request.stream().anyMatch(RateLimitCheck::acquiresLease))
					? this.leaseIds.get() : "";
			byte[][] keyBytes = new byte[request.size()][];
			for (int i = 0; i < request.size(); i++) {
				keyBytes[i] = this.keys.key(request.get(i).policy(), request.get(i).subject())
					.getBytes(StandardCharsets.UTF_8);
			}
			boolean gcraRequest = this.scripts.forChecks(request, mode) == this.scripts.gcra();
			gcra &= gcraRequest;
			batch.add(new BatchLane.Request(this.commands, keyBytes,
					this.scripts.general().checkArguments(request, leaseId, now), request, mode, leaseId, now, gcraRequest,
					new CompletableFuture<>()));
		}
		return (gcra ? this.scripts.gcra() : this.scripts.general()).runBatch(this.commands, batch, now).join();
	}

	/**
	 * Runs one batch of GCRA evaluations in one call of {@code gcra.lua} as a Redis Cluster master's batch across
	 * hash slots goes (undeclared keys, under a script flag: Redis 7 and later).
	 * @param requests the requests, in batch order
	 * @param now the explicit time of the call
	 * @return one reply per request
	 */
	List<RateLimitScript.Reply> runAcrossSlots(List<List<RateLimitCheck>> requests, long now) {
		List<BatchLane.Request> batch = new ArrayList<>();
		for (List<RateLimitCheck> request : requests) {
			if (this.scripts.forChecks(request, RateLimitScript.Mode.EVALUATE) != this.scripts.gcra()) {
				throw new IllegalArgumentException("Not a request of gcra.lua: " + request);
			}
			byte[][] keyBytes = new byte[request.size()][];
			for (int i = 0; i < request.size(); i++) {
				keyBytes[i] = this.keys.key(request.get(i).policy(), request.get(i).subject())
					.getBytes(StandardCharsets.UTF_8);
			}
			batch.add(new BatchLane.Request(this.commands, keyBytes,
					this.scripts.general().checkArguments(request, "", now), request, RateLimitScript.Mode.EVALUATE,
					"", now, true, new CompletableFuture<>()));
		}
		return this.scripts.gcra().runBatch(this.commands, batch, now, true).join();
	}

}
