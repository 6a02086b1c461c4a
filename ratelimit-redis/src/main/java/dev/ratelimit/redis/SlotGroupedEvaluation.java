package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import io.lettuce.core.cluster.SlotHash;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Decides the checks of one request in a Redis Cluster, where only keys of one hash slot may share a script call:
 * the checks are grouped by slot and the groups run concurrently. When one group denies, the groups that admitted
 * are refunded (a second call that gives back exactly what they consumed; a distinct value that a HyperLogLog
 * counted cannot be taken back and stays counted) and report their state without the
 * request; for a peek, which consumed nothing, they are inspected again. When one group fails (e.g. its master is
 * down), the call is abandoned at once: the request is decided without the store, so what the other groups consumed
 * is given back as their replies arrive, and the failure names its slot ({@link ClusterSlotException}) so that it is
 * blamed on that slot's master only.
 * <p>
 * A request that reserves waits for the latest slot among the groups, and every decision reports that delay and its
 * state seen from then. A group that reserved an earlier slot (or none) keeps it: each script call is atomic in its
 * own slot only, so that rule counts the request up to the difference earlier than it proceeds.
 */
final class SlotGroupedEvaluation {

	private static final Log logger = LogFactory.getLog(SlotGroupedEvaluation.class);

	private final ScriptsInUse scripts;

	SlotGroupedEvaluation(ScriptsInUse scripts) {
		this.scripts = scripts;
	}

	/**
	 * Runs one call per slot. When one denies, the slots that admitted report their state without the request: an
	 * evaluation refunds them (releasing the leases they acquired), a peek (which consumed nothing) inspects them
	 * again.
	 */
	CompletableFuture<List<Decision>> decide(IssuedCommands commands,
			byte[][] keyBytes, List<RateLimitCheck> checks, @Nullable Long now, RateLimitScript.Mode mode,
			String leaseId) {
		Map<Integer, List<Integer>> slots = new LinkedHashMap<>();
		for (int i = 0; i < checks.size(); i++) {
			slots.computeIfAbsent(SlotHash.getSlot(keyBytes[i]), (slot) -> new ArrayList<>()).add(i);
		}
		List<SlotGroup> groups = new ArrayList<>();
		for (Map.Entry<Integer, List<Integer>> slot : slots.entrySet()) {
			groups.add(new SlotGroup(slot.getKey(), slot.getValue(), keyBytes, checks));
		}
		List<CompletableFuture<RateLimitScript.Reply>> replies = new ArrayList<>();
		List<IssuedCommands.@Nullable Compensation<RateLimitScript.Reply, RateLimitScript.Reply>> refunds =
				new ArrayList<>();
		for (SlotGroup group : groups) {
			CompletableFuture<RateLimitScript.Reply> reply = this.scripts.forChecks(group.checks, mode)
				.run(commands, group.keys, group.checks, now, mode, leaseId);
			replies.add(reply.exceptionallyCompose((ex) -> {
				Throwable failure = named(group.slot, ex);
				if (!(failure instanceof CancellationException)) {
					// the request is decided without the store: what its other slots consumed is given back
					commands.abandon();
				}
				return CompletableFuture.failedFuture(failure);
			}));
			// a refund only gives back, so it runs even when the limiter has given up on the call meanwhile
			refunds.add((mode != RateLimitScript.Mode.EVALUATE) ? null : commands.compensable(reply,
					(admitted) -> admitted.allowed() ? this.scripts.refund(commands.compensations(), group.keys,
							group.checks, admitted, now, leaseId) : CompletableFuture.completedFuture(admitted)));
		}
		return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).thenCompose((ignored) -> {
			boolean allowed = replies.stream().allMatch((reply) -> reply.join().allowed());
			Decision[] decisions = new Decision[checks.size()];
			List<CompletableFuture<?>> secondCalls = new ArrayList<>();
			for (int g = 0; g < groups.size(); g++) {
				SlotGroup group = groups.get(g);
				RateLimitScript.Reply reply = replies.get(g).join();
				group.place(reply.decisions(), decisions);
				IssuedCommands.Compensation<RateLimitScript.Reply, RateLimitScript.Reply> refund = refunds.get(g);
				if (!allowed && reply.allowed()) {
					CompletableFuture<List<Decision>> unconsumed = (refund == null) ? inspect(commands, group, now)
							: refunded(refund, reply);
					secondCalls.add(unconsumed.thenAccept((peeked) -> group.placeAllowed(peeked, reply.decisions(),
							decisions)));
				}
			}
			if (allowed) {
				alignDelays(decisions);
			}
			return CompletableFuture.allOf(secondCalls.toArray(CompletableFuture[]::new))
				.thenApply((done) -> Arrays.asList(decisions));
		});
	}

	/** Names the slot of a failed call, so that the failure can be blamed on the node serving it. */
	private static Throwable named(int slot, Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		return (cause instanceof CancellationException) ? cause : new ClusterSlotException(slot, cause);
	}

	/** Gives every admitting decision the request's delay, the longest, its reset seen from then. */
	private static void alignDelays(Decision[] decisions) {
		Duration delay = Duration.ZERO;
		for (Decision decision : decisions) {
			delay = (decision.delay().compareTo(delay) > 0) ? decision.delay() : delay;
		}
		for (int i = 0; i < decisions.length; i++) {
			Decision decision = decisions[i];
			Duration later = delay.minus(decision.delay());
			if (decision.allowed() && !later.isZero()) {
				Duration reset = decision.resetAfter().minus(later);
				Duration next = decision.nextAfter().minus(later);
				// the instant of the reset stays what the store said
				decisions[i] = new Decision(true, decision.limit(), decision.remaining(),
						reset.isNegative() ? Duration.ZERO : reset, Duration.ZERO, decision.lease(),
						decision.reclaimed(), next.isNegative() ? Duration.ZERO : next, decision.resetAt(),
						decision.decidedAt(), delay);
			}
		}
	}

	private CompletableFuture<List<Decision>> inspect(IssuedCommands commands,
			SlotGroup group, @Nullable Long now) {
		List<RateLimitCheck> inspections = new ArrayList<>(group.checks.size());
		for (RateLimitCheck check : group.checks) {
			inspections.add(check.withCost(0));
		}
		return this.scripts.general().run(commands, group.keys, inspections, now, RateLimitScript.Mode.PEEK, "")
			.thenApply(RateLimitScript.Reply::decisions);
	}

	private static CompletableFuture<List<Decision>> refunded(
			IssuedCommands.Compensation<RateLimitScript.Reply, RateLimitScript.Reply> refund,
			RateLimitScript.Reply admitted) {
		return refund.run().thenApply(RateLimitScript.Reply::decisions).exceptionally((ex) -> {
			// the decisions keep the leases acquired, which stay held until released or expired
			logger.warn("Could not refund a request denied in another cluster slot; its quota stays consumed", ex);
			return admitted.decisions();
		});
	}

	/** The checks of one request that share a hash slot. */
	private static final class SlotGroup {

		private final int slot;

		private final List<Integer> indexes;

		private final byte[][] keys;

		private final List<RateLimitCheck> checks;

		SlotGroup(int slot, List<Integer> indexes, byte[][] allKeys, List<RateLimitCheck> allChecks) {
			this.slot = slot;
			this.indexes = indexes;
			this.keys = new byte[indexes.size()][];
			this.checks = new ArrayList<>(indexes.size());
			for (int i = 0; i < indexes.size(); i++) {
				this.keys[i] = allKeys[indexes.get(i)];
				this.checks.add(allChecks.get(indexes.get(i)));
			}
		}

		void place(List<Decision> groupDecisions, Decision[] all) {
			for (int i = 0; i < this.indexes.size(); i++) {
				all[this.indexes.get(i)] = groupDecisions.get(i);
			}
		}

		/** Places the refunded (inspected) decisions of the checks that had admitted. */
		void placeAllowed(List<Decision> peeked, List<Decision> original, Decision[] all) {
			for (int i = 0; i < this.indexes.size(); i++) {
				if (original.get(i).allowed()) {
					all[this.indexes.get(i)] = peeked.get(i);
				}
			}
		}

	}

}
