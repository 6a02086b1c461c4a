package dev.ratelimit.sample.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * An application made of a guide's own snippets: its {@code java} blocks that name a file under
 * {@code src/main/java}, compiled against the test's class path, and its {@code yaml} blocks that name
 * {@code src/main/resources/application.yml}, joined into that file.
 */
final class GuideApplication {

	private static final String JAVA = "src/main/java/";

	private static final String APPLICATION_YML = "src/main/resources/application.yml";

	private final Path dir;

	private final List<Path> sources = new ArrayList<>();

	private final String mainClass;

	private GuideApplication(Path dir, String mainClass) {
		this.dir = dir;
		this.mainClass = mainClass;
	}

	/**
	 * Writes a guide's application into a directory and compiles it.
	 * @param guide the guide
	 * @param dir an empty directory
	 * @return the application
	 */
	static GuideApplication from(Markdown guide, Path dir) {
		String mainClass = null;
		StringBuilder yml = new StringBuilder();
		List<Path> sources = new ArrayList<>();
		try {
			for (Markdown.Block block : guide.blocks()) {
				if (block.language().equals("java") && block.info().startsWith(JAVA)) {
					Path source = dir.resolve(block.info());
					Files.createDirectories(source.getParent());
					Files.writeString(source, block.text());
					sources.add(source);
					if (block.text().contains("@SpringBootApplication")) {
						mainClass = block.info().substring(JAVA.length(), block.info().length() - ".java".length())
							.replace('/', '.');
					}
				}
				else if (block.language().equals("yaml") && block.info().equals(APPLICATION_YML)) {
					yml.append(block.text());
				}
			}
			if (mainClass == null || yml.isEmpty()) {
				throw new IllegalStateException(guide.file() + " has no @SpringBootApplication class or no application.yml");
			}
			Files.writeString(dir.resolve("application.yml"), yml);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		GuideApplication application = new GuideApplication(dir, mainClass);
		application.sources.addAll(sources);
		application.compile();
		return application;
	}

	private void compile() {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		List<String> arguments = new ArrayList<>(List.of("-d", classes().toString(), "-classpath",
				System.getProperty("java.class.path"), "-proc:none", "-parameters"));
		this.sources.forEach((source) -> arguments.add(source.toString()));
		try {
			Files.createDirectories(classes());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		int status = compiler.run(null, null, null, arguments.toArray(String[]::new));
		if (status != 0) {
			throw new IllegalStateException("The guide's Java does not compile (javac exit " + status + ")");
		}
	}

	private Path classes() {
		return this.dir.resolve("classes");
	}

	/** @return the text of the application.yml the guide's blocks make */
	String applicationYml() {
		try {
			return Files.readString(this.dir.resolve("application.yml"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Starts the application with its application.yml (and no other) and more properties.
	 * @param properties properties such as {@code server.port=0}, which win over the file's
	 * @return the running application
	 */
	ConfigurableApplicationContext run(String... properties) {
		ClassLoader loader;
		try {
			loader = new URLClassLoader(new URL[] { classes().toUri().toURL() }, getClass().getClassLoader());
			Class<?> main = loader.loadClass(this.mainClass);
			List<String> arguments = new ArrayList<>();
			arguments.add("--spring.config.location=file:" + this.dir.resolve("application.yml"));
			for (String property : properties) {
				arguments.add("--" + property);
			}
			return new SpringApplicationBuilder(main).resourceLoader(new DefaultResourceLoader(loader))
				.run(arguments.toArray(String[]::new));
		}
		catch (MalformedURLException | ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
