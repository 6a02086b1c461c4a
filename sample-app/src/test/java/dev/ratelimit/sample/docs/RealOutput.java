package dev.ratelimit.sample.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A documentation page with the output shown under each {@code $} command replaced by the real output of a run, for
 * whoever updates the page after a deliberate change.
 */
final class RealOutput {

	private final Markdown page;

	private final TreeMap<Integer, CurlTranscript.Step> steps = new TreeMap<>();

	private final TreeMap<Integer, String> outputs = new TreeMap<>();

	RealOutput(Markdown page) {
		this.page = page;
	}

	/**
	 * Records the real output of a step whose shown output differs (one that agrees stays as shown).
	 * @param step the step
	 * @param actual its real output
	 */
	void record(CurlTranscript.Step step, String actual) {
		this.steps.put(step.line(), step);
		this.outputs.put(step.line(), actual);
	}

	void write(Path file) {
		try {
			List<String> lines = new ArrayList<>(Files.readAllLines(this.page.file()));
			// from the last step up, so that earlier line numbers stay valid
			for (Integer line : this.steps.descendingKeySet()) {
				CurlTranscript.Step step = this.steps.get(line);
				int shown = (int) step.expected().chars().filter((c) -> c == '\n').count();
				for (int i = 0; i < shown; i++) {
					lines.remove(line.intValue());
				}
				String actual = this.outputs.get(line);
				List<String> real = new ArrayList<>(List.of(actual.split("\n", -1)));
				if (!real.isEmpty() && real.get(real.size() - 1).isEmpty()) {
					real.remove(real.size() - 1);
				}
				lines.addAll(line, real);
			}
			Files.createDirectories(file.getParent());
			Files.write(file, lines);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
