package dev.ratelimit.sample.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Just enough Markdown for the documentation tests: fenced code blocks, headings and the GitHub anchors they get,
 * relative links. Read from the repository's files at test time, so that what is checked is what readers see.
 */
public final class Markdown {

	private static final Pattern FENCE = Pattern.compile("^\\s*```+\\s*([\\w+-]*)\\s*(.*)$");

	private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.+?)\\s*#*\\s*$");

	private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

	private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

	private static final Pattern HTML_SRC = Pattern.compile("<(?:img|a)\\s[^>]*(?:src|href)=\"([^\"]+)\"");

	private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");

	private final Path file;

	private final List<String> lines;

	private Markdown(Path file, List<String> lines) {
		this.file = file;
		this.lines = lines;
	}

	/**
	 * Reads a Markdown file.
	 * @param file the file
	 * @return its Markdown
	 */
	public static Markdown read(Path file) {
		try {
			return new Markdown(file, Files.readAllLines(file));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Returns the repository's root, found from the module's directory (where Maven runs the tests).
	 * @return the directory that holds README.md and the parent pom.xml
	 */
	public static Path repositoryRoot() {
		Path dir = Path.of("").toAbsolutePath();
		while (dir != null) {
			if (Files.isRegularFile(dir.resolve("README.md")) && Files.isRegularFile(dir.resolve(".ci/run"))) {
				return dir;
			}
			dir = dir.getParent();
		}
		throw new IllegalStateException("No repository root (README.md and .ci/run) above " + Path.of("").toAbsolutePath());
	}

	/**
	 * Returns README.md and every Markdown file under docs/.
	 * @param root the repository's root
	 * @return the files, README first
	 */
	public static List<Path> documentation(Path root) {
		List<Path> files = new ArrayList<>();
		files.add(root.resolve("README.md"));
		try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(files::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return files;
	}

	/** @return the file this Markdown was read from */
	public Path file() {
		return this.file;
	}

	/**
	 * A fenced code block.
	 * @param language the info string's first word ({@code yaml}, {@code java}, ...), empty when none
	 * @param info the rest of the info string (e.g. a file name the guide gives the block)
	 * @param text the block's lines
	 * @param line the line number of the opening fence (1-based)
	 */
	public record Block(String language, String info, String text, int line) {
	}

	/** @return the fenced code blocks, in order, each without the indentation of its fence */
	public List<Block> blocks() {
		List<Block> blocks = new ArrayList<>();
		Block open = null;
		int indent = 0;
		StringBuilder text = new StringBuilder();
		for (int i = 0; i < this.lines.size(); i++) {
			String line = this.lines.get(i);
			Matcher fence = FENCE.matcher(line);
			if (open == null && fence.matches()) {
				open = new Block(fence.group(1), fence.group(2).trim(), "", i + 1);
				indent = line.indexOf('`');
				text.setLength(0);
			}
			else if (open != null && line.trim().startsWith("```")) {
				blocks.add(new Block(open.language(), open.info(), text.toString(), open.line()));
				open = null;
			}
			else if (open != null) {
				// a block in a list item is indented as its fence is: its text is without that indentation
				int strip = 0;
				while (strip < indent && strip < line.length() && line.charAt(strip) == ' ') {
					strip++;
				}
				text.append(line, strip, line.length()).append('\n');
			}
		}
		return blocks;
	}

	/**
	 * Returns the line just above a block's opening fence, without its indentation (e.g. an HTML comment that says how a
	 * test reads it).
	 * @param block a block of this file
	 * @return that line, empty for a block on the first line
	 */
	public String lineBefore(Block block) {
		return (block.line() > 1) ? this.lines.get(block.line() - 2).strip() : "";
	}

	/** @return the anchors a link can point at: GitHub's ids of the headings, and explicit HTML anchors */
	public Set<String> anchors() {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (String line : proseLines()) {
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				String slug = slug(heading.group(2));
				int count = seen.merge(slug, 1, Integer::sum);
				anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
			}
			Matcher html = HTML_ANCHOR.matcher(line);
			while (html.find()) {
				anchors.add(html.group(1));
			}
		}
		return anchors;
	}

	/**
	 * A link of the prose (links inside code are not links).
	 * @param target the target as written
	 * @param line its line number (1-based)
	 */
	public record Link(String target, int line) {
	}

	/** @return the links outside code blocks and code spans */
	public List<Link> links() {
		List<Link> links = new ArrayList<>();
		boolean inFence = false;
		for (int i = 0; i < this.lines.size(); i++) {
			String line = this.lines.get(i);
			if (line.trim().startsWith("```")) {
				inFence = !inFence;
				continue;
			}
			if (inFence) {
				continue;
			}
			String prose = INLINE_CODE.matcher(line).replaceAll("code");
			Matcher link = LINK.matcher(prose);
			while (link.find()) {
				links.add(new Link(link.group(1), i + 1));
			}
			Matcher html = HTML_SRC.matcher(prose);
			while (html.find()) {
				links.add(new Link(html.group(1), i + 1));
			}
		}
		return links;
	}

	private List<String> proseLines() {
		List<String> prose = new ArrayList<>();
		boolean inFence = false;
		for (String line : this.lines) {
			if (line.trim().startsWith("```")) {
				inFence = !inFence;
			}
			else if (!inFence) {
				prose.add(line);
			}
		}
		return prose;
	}

	/**
	 * Returns GitHub's anchor of a heading: lower case, links reduced to their text, punctuation other than hyphens
	 * and underscores dropped, spaces made hyphens.
	 * @param heading the heading's text
	 * @return its anchor
	 */
	static String slug(String heading) {
		String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").toLowerCase(Locale.ROOT);
		StringBuilder slug = new StringBuilder();
		text.codePoints().forEach((c) -> {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
			else if (c == ' ') {
				slug.append('-');
			}
		});
		return slug.toString();
	}

}
