package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitScript#distinct}, which tells {@code gcra.lua} that a call needs no table of what it wrote
 * (decision 137): a wrong {@code true} would let a key that occurs twice in a call move its TAT from a stale value.
 */
class RateLimitScriptTests {

	@Test
	void fewKeysAreComparedPairwise() {
		assertThat(RateLimitScript.distinct(keys())).isTrue();
		assertThat(RateLimitScript.distinct(keys("a"))).isTrue();
		assertThat(RateLimitScript.distinct(keys("a", "b", "c"))).isTrue();
		assertThat(RateLimitScript.distinct(keys("a", "b", "a"))).isFalse();
		assertThat(RateLimitScript.distinct(keys("a", "b", "c", "d", "e", "f", "g", "g"))).isFalse();
	}

	@Test
	void manyKeysAreComparedThroughTheirHashesAndInFull() {
		// "Aa" and "BB" have the same hash: keys built of them collide without being equal
		String[] colliding = new String[64];
		for (int i = 0; i < colliding.length; i++) {
			StringBuilder key = new StringBuilder("rl:{api:");
			for (int bit = 0; bit < 6; bit++) {
				key.append(((i >> bit) & 1) == 0 ? "Aa" : "BB");
			}
			colliding[i] = key.append('}').toString();
		}
		assertThat(RateLimitScript.distinct(keys(colliding))).isTrue();
		String[] repeated = colliding.clone();
		repeated[63] = colliding[17];
		assertThat(RateLimitScript.distinct(keys(repeated))).isFalse();
	}

	@Test
	void randomCallsAgreeWithASet() {
		Random random = new Random(137);
		for (int call = 0; call < 2_000; call++) {
			int size = 1 + random.nextInt(80);
			String[] names = new String[size];
			for (int i = 0; i < size; i++) {
				names[i] = "rl:{api:user-" + random.nextInt(size * 8) + "}";
			}
			boolean expected = new HashSet<>(Arrays.asList(names)).size() == size;
			assertThat(RateLimitScript.distinct(keys(names))).as("call %d", call).isEqualTo(expected);
		}
	}

	private static byte[][] keys(String... names) {
		byte[][] keys = new byte[names.length][];
		for (int i = 0; i < names.length; i++) {
			// a new array per key, so that equal keys are never the same instance
			keys[i] = names[i].getBytes(StandardCharsets.UTF_8);
		}
		return keys;
	}

}
