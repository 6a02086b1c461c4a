package dev.ratelimit.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.benchmarks.throughput.EntryResult;
import dev.ratelimit.benchmarks.throughput.ScenarioResult;

/**
 * Draws decisions per second as an SVG: one panel per scenario, one horizontal bar per client, each panel on its own
 * scale (the scenarios differ by an order of magnitude). Plain SVG with a generic font family, no external resources.
 */
public final class ThroughputChart {

	private static final int WIDTH = 920;

	private static final int LABEL = 370;

	private static final int BAR_AREA = 380;

	private static final int BAR = 18;

	private static final int GAP = 6;

	private static final int PANEL_TITLE = 28;

	private static final Map<String, String> COLORS = Map.of("ours", "#1f6feb", "ours-starter", "#0a3069",
			"ours-1-rule", "#79a8f0", "ours-script", "#a5c8f5", "ideal", "#6e7781", "bucket4j", "#d4a72c", "redisson",
			"#cf222e", "scg", "#2da44e");

	private ThroughputChart() {
	}

	/** Returns the SVG document. */
	public static String svg(List<ScenarioResult> results) {
		int height = 40;
		for (ScenarioResult result : results) {
			height += PANEL_TITLE + result.entries().size() * (BAR + GAP) + 14;
		}
		StringBuilder out = new StringBuilder();
		out.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
						+ "font-family=\"sans-serif\" font-size=\"13\">%n",
				WIDTH, height, WIDTH, height));
		out.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH, height));
		out.append("<text x=\"10\" y=\"24\" font-size=\"16\" font-weight=\"bold\">Decisions per second "
				+ "(higher is better; each panel on its own scale)</text>\n");
		int y = 40;
		for (ScenarioResult result : results) {
			out.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
					y + 18, escape(result.scenario().title())));
			y += PANEL_TITLE;
			double scale = scale(result.entries());
			for (EntryResult entry : result.entries()) {
				String id = entry.entry().id();
				boolean broken = entry.perSecond() > scale;
				int length = (int) Math.max(1, Math.round(BAR_AREA * Math.min(entry.perSecond(), scale) / scale));
				out.append(String.format(Locale.ROOT,
						"<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>%s</text>%n", LABEL - 8, y + BAR - 4,
						entry.entry().highlighted() ? " font-weight=\"bold\"" : "", escape(entry.entry().label())));
				out.append(String.format(Locale.ROOT,
						"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n", LABEL, y, length, BAR,
						COLORS.getOrDefault(id, "#8c959f")));
				if (broken) {
					// an axis break: this bar is far longer than the panel's scale
					int x = LABEL + length - 40;
					out.append(String.format(Locale.ROOT,
							"<path d=\"M%d %d l6 %d M%d %d l6 %d\" stroke=\"#ffffff\" stroke-width=\"3\"/>%n", x, y - 1,
							BAR + 2, x + 7, y - 1, BAR + 2));
				}
				out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s%s</text>%n", LABEL + length + 6,
						y + BAR - 4, Format.count(entry.perSecond()), broken ? " (axis broken)" : ""));
				y += BAR + GAP;
			}
			y += 14;
		}
		out.append("</svg>\n");
		return out.toString();
	}

	/**
	 * Returns the value a full bar stands for: the largest result, unless it is more than five times the next largest
	 * (e.g. decisions answered from memory), in which case the scale follows the others and that bar is drawn broken.
	 */
	private static double scale(List<EntryResult> entries) {
		double[] sorted = entries.stream().mapToDouble(EntryResult::perSecond).sorted().toArray();
		if (sorted.length == 0) {
			return 1;
		}
		double max = sorted[sorted.length - 1];
		if (sorted.length > 1 && max > 5 * sorted[sorted.length - 2]) {
			return sorted[sorted.length - 2] * 1.25;
		}
		return max;
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

}
