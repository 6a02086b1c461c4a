package dev.ratelimit.test.tracing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.micrometer.tracing.exporter.FinishedSpan;
import org.jspecify.annotations.Nullable;

/**
 * The finished spans of a test's in-memory tracer as trees: who is whose parent, and a text rendering of a trace with
 * the tags that matter, e.g.
 *
 * <pre>
 * http get /api/hello
 *   ratelimit decision {ratelimit.outcome=allowed, ratelimit.rules=hello}
 *     evalsha {db.system=redis}
 * </pre>
 */
public final class SpanTree {

	private final List<FinishedSpan> spans;

	private SpanTree(List<FinishedSpan> spans) {
		this.spans = spans;
	}

	/**
	 * Returns the tree of the finished spans among {@code spans} (those with an end time).
	 * @param spans the spans, e.g. {@code SimpleTracer.getSpans()}
	 * @return the tree
	 */
	public static SpanTree of(Collection<? extends FinishedSpan> spans) {
		List<FinishedSpan> finished = new ArrayList<>();
		for (FinishedSpan span : List.copyOf(spans)) {
			if (span.getEndTimestamp() != null && span.getEndTimestamp().toEpochMilli() > 0) {
				finished.add(span);
			}
		}
		finished.sort(Comparator.comparing(FinishedSpan::getStartTimestamp));
		return new SpanTree(finished);
	}

	/** Returns the finished spans named {@code name}, in the order they started. */
	public List<FinishedSpan> named(String name) {
		return this.spans.stream().filter((span) -> name.equals(span.getName())).toList();
	}

	/** Returns the span's parent among the finished spans. */
	public Optional<FinishedSpan> parent(FinishedSpan span) {
		if (span.getParentId() == null) {
			return Optional.empty();
		}
		return this.spans.stream()
			.filter((candidate) -> candidate.getTraceId().equals(span.getTraceId())
					&& candidate.getSpanId().equals(span.getParentId()))
			.findFirst();
	}

	/** Returns the span's children among the finished spans, in the order they started. */
	public List<FinishedSpan> children(FinishedSpan span) {
		return this.spans.stream()
			.filter((candidate) -> candidate.getTraceId().equals(span.getTraceId())
					&& span.getSpanId().equals(candidate.getParentId()))
			.toList();
	}

	/** Returns the root of the span's trace (the span itself when it has no finished parent). */
	public FinishedSpan root(FinishedSpan span) {
		FinishedSpan current = span;
		for (Optional<FinishedSpan> parent = parent(current); parent.isPresent(); parent = parent(current)) {
			current = parent.get();
		}
		return current;
	}

	/**
	 * Renders the tree under {@code root}, one span a line, indented by depth, with the tags named.
	 * @param root the span to start from
	 * @param tags the keys of the tags to show, where a span has them
	 * @return the rendering
	 */
	public String render(FinishedSpan root, List<String> tags) {
		StringBuilder out = new StringBuilder();
		render(root, tags, 0, out);
		return out.toString();
	}

	/** Renders every trace, from its roots, each span with all its tags. */
	@Override
	public String toString() {
		StringBuilder out = new StringBuilder();
		for (FinishedSpan span : this.spans) {
			if (parent(span).isEmpty()) {
				render(span, null, 0, out);
			}
		}
		return out.toString();
	}

	private void render(FinishedSpan span, @Nullable List<String> tags, int depth, StringBuilder out) {
		out.append("  ".repeat(depth)).append(span.getName());
		List<String> shown = new ArrayList<>();
		for (String key : (tags != null) ? tags : span.getTags().keySet()) {
			String value = span.getTags().get(key);
			if (value != null) {
				shown.add(key + "=" + value);
			}
		}
		if (!shown.isEmpty()) {
			out.append(" {").append(String.join(", ", shown)).append('}');
		}
		out.append('\n');
		for (FinishedSpan child : children(span)) {
			if (!Objects.equals(child, span)) {
				render(child, tags, depth + 1, out);
			}
		}
	}

}
