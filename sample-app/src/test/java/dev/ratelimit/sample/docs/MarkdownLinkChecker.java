package dev.ratelimit.sample.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the relative links of Markdown files that lead nowhere: a file or directory that does not exist, or an anchor
 * that no heading (or HTML anchor) of the target file has. Links to other sites are not followed.
 */
final class MarkdownLinkChecker {

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	/**
	 * Returns every broken link of the files, one line each ({@code file:line: target (why)}).
	 * @param root the directory the file names are shown relative to
	 * @param files the Markdown files
	 * @return the broken links, empty when there are none
	 */
	List<String> brokenLinks(Path root, List<Path> files) {
		List<String> broken = new ArrayList<>();
		for (Path file : files) {
			Markdown markdown = Markdown.read(file);
			for (Markdown.Link link : markdown.links()) {
				String problem = problem(file, link.target());
				if (problem != null) {
					broken.add(root.relativize(file) + ":" + link.line() + ": " + link.target() + " (" + problem + ")");
				}
			}
		}
		return broken;
	}

	private String problem(Path file, String target) {
		if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
			return null; // https:, mailto:, ...: another site
		}
		int hash = target.indexOf('#');
		String path = (hash < 0) ? target : target.substring(0, hash);
		String anchor = (hash < 0) ? null : target.substring(hash + 1);
		int query = path.indexOf('?');
		if (query >= 0) {
			path = path.substring(0, query);
		}
		Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
		if (!Files.exists(resolved)) {
			return "no such file: " + resolved;
		}
		if (anchor == null || anchor.isEmpty()) {
			return null;
		}
		if (!resolved.toString().endsWith(".md")) {
			return null; // a line anchor into source (#L10) is GitHub's, not the file's
		}
		Set<String> known = this.anchors.computeIfAbsent(resolved, (md) -> Markdown.read(md).anchors());
		return known.contains(anchor) ? null : "no heading with anchor #" + anchor + " in " + resolved.getFileName();
	}

}
