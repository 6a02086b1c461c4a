package dev.ratelimit.test.tracing;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import io.micrometer.tracing.exporter.FinishedSpan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the tracing tests of both web stacks check of the traces of the last three requests of one rule: allowed,
 * waited, then denied. Each request's HTTP server span has a {@code ratelimit decision} child tagged with the rule, the outcome,
 * the algorithm, the store and its state and the caller (never the client's address), under which is the span of the
 * Redis command that decided; the waited request also has a {@code ratelimit wait} child.
 */
public final class DecisionTraces {

	/** The tags the renderings show. */
	public static final List<String> TAGS = List.of("ratelimit.rules", "ratelimit.outcome", "ratelimit.denied.by",
			"ratelimit.algorithm", "ratelimit.store", "ratelimit.store.state", "ratelimit.caller", "db.system",
			"http.url", "outcome", "status");

	private DecisionTraces() {
	}

	/**
	 * Waits until the three decisions, the wait and their Redis commands have finished (a command's span may end just
	 * after the verdict it carried was delivered), then checks them.
	 * @param spans the tracer's spans
	 * @param rule the rule of the three requests
	 * @param caller the decisions' caller tag, e.g. {@code servlet}
	 * @return the text rendering of the three traces
	 */
	public static String assertAllowedWaitedDenied(Supplier<Collection<? extends FinishedSpan>> spans, String rule,
			String caller) {
		SpanTree trees = await().atMost(Duration.ofSeconds(10))
			.until(() -> SpanTree.of(spans.get()), (tree) -> tree.named("ratelimit decision").size() >= 3
					&& tree.named("ratelimit wait").size() >= 1 && tree.named("ratelimit decision")
						.stream()
						.allMatch((decision) -> tree.parent(decision).filter(DecisionTraces::isHttp).isPresent()
								&& tree.children(decision).stream().anyMatch(DecisionTraces::isEval)));
		List<FinishedSpan> all = trees.named("ratelimit decision");
		List<FinishedSpan> decisions = all.subList(all.size() - 3, all.size());
		assertThat(decisions).extracting((span) -> span.getTags().get("ratelimit.outcome"))
			.containsExactly("allowed", "waited", "denied");
		StringBuilder rendering = new StringBuilder();
		for (FinishedSpan decision : decisions) {
			FinishedSpan http = trees.parent(decision).orElseThrow();
			rendering.append(trees.render(http, TAGS)).append('\n');
			assertThat(trees.root(decision)).isEqualTo(http);
			assertThat(decision.getTags()).containsEntry("ratelimit.rules", rule)
				.containsEntry("ratelimit.store", "redis")
				.containsEntry("ratelimit.store.state", "redis")
				.containsEntry("ratelimit.caller", caller)
				.doesNotContainValue("127.0.0.1");
		}
		assertThat(decisions.get(0).getTags()).containsEntry("ratelimit.denied.by", "none");
		assertThat(decisions.get(2).getTags()).containsEntry("ratelimit.denied.by", rule);
		List<FinishedSpan> waits = trees.named("ratelimit wait");
		FinishedSpan wait = waits.get(waits.size() - 1);
		assertThat(trees.parent(wait)).contains(trees.parent(decisions.get(1)).orElseThrow());
		assertThat(Duration.between(wait.getStartTimestamp(), wait.getEndTimestamp())).isPositive();
		return rendering.toString();
	}

	/**
	 * Waits until the decisions of two outbound calls of one rule (caller {@code outbound}) and their Redis commands
	 * have finished, then checks them: the first allowed, the second denied by the rule, each the child of the HTTP
	 * client's span ({@code WebClient}'s own observation), itself under the caller's observation, with the Redis
	 * command under the decision.
	 * @param spans the tracer's spans
	 * @param rule the outbound calls' rule
	 * @return the text rendering of the two traces, from their roots
	 */
	public static String assertOutboundAllowedDenied(Supplier<Collection<? extends FinishedSpan>> spans, String rule) {
		SpanTree trees = await().atMost(Duration.ofSeconds(10))
			.until(() -> SpanTree.of(spans.get()), (tree) -> outbound(tree, rule).size() >= 2 && outbound(tree, rule)
				.stream()
				.allMatch((decision) -> tree.parent(decision).filter(DecisionTraces::isHttp).isPresent()
						&& tree.children(decision).stream().anyMatch(DecisionTraces::isEval)));
		List<FinishedSpan> all = outbound(trees, rule);
		List<FinishedSpan> decisions = all.subList(all.size() - 2, all.size());
		assertThat(decisions).extracting((span) -> span.getTags().get("ratelimit.outcome"))
			.containsExactly("allowed", "denied");
		assertThat(decisions).extracting((span) -> span.getTags().get("ratelimit.denied.by"))
			.containsExactly("none", rule);
		StringBuilder rendering = new StringBuilder();
		for (FinishedSpan decision : decisions) {
			FinishedSpan client = trees.parent(decision).orElseThrow();
			// the client's span is under the caller's own observation, not a server's
			assertThat(trees.root(decision)).isNotEqualTo(client).satisfies((root) -> assertThat(isHttp(root)).isFalse());
			assertThat(decision.getTags()).containsEntry("ratelimit.store", "redis")
				.containsEntry("ratelimit.store.state", "redis")
				.containsKey("ratelimit.algorithm")
				.doesNotContainValue("localhost")
				.doesNotContainValue("127.0.0.1");
			rendering.append(trees.render(trees.root(decision), TAGS)).append('\n');
		}
		return rendering.toString();
	}

	private static List<FinishedSpan> outbound(SpanTree tree, String rule) {
		return tree.named("ratelimit decision")
			.stream()
			.filter((span) -> "outbound".equals(span.getTags().get("ratelimit.caller"))
					&& rule.equals(span.getTags().get("ratelimit.rules")))
			.toList();
	}

	private static boolean isHttp(FinishedSpan span) {
		return span.getName().startsWith("http ");
	}

	private static boolean isEval(FinishedSpan span) {
		return span.getName().startsWith("eval");
	}

}
