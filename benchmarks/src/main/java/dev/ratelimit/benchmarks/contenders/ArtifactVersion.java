package dev.ratelimit.benchmarks.contenders;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The version of a library on the class path, from the {@code pom.properties} Maven puts in every jar. */
public final class ArtifactVersion {

	private ArtifactVersion() {
	}

	/** Returns the version of {@code groupId:artifactId}, or {@code ?} if the jar does not say. */
	public static String of(String groupId, String artifactId) {
		String location = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
		try (InputStream in = ArtifactVersion.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				return "?";
			}
			Properties properties = new Properties();
			properties.load(in);
			return properties.getProperty("version", "?");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
