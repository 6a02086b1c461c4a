package dev.ratelimit.actuate;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.redis.RedisMemory;
import dev.ratelimit.redis.RedisMemoryMonitor;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Gauges of the memory of the limiter's Redis, tagged by node ({@code host:port}, every master of a Cluster; a
 * bounded set): {@code ratelimit.store.memory.usage} ({@code used_memory / maxmemory}, NaN without a memory limit or
 * before the first reading) and {@code ratelimit.store.out.of.memory} (1 while Redis refuses the limiter's writes for
 * memory, else 0).
 */
public class RedisMemoryMetrics {

	private final MeterRegistry registry;

	private final RedisMemoryMonitor monitor;

	private final Set<String> nodes = ConcurrentHashMap.newKeySet();

	/**
	 * Registers the gauges of every node the monitor reads, as it reads them.
	 * @param registry the registry
	 * @param monitor the monitor
	 */
	public RedisMemoryMetrics(MeterRegistry registry, RedisMemoryMonitor monitor) {
		this.registry = registry;
		this.monitor = monitor;
		monitor.onReading(this::register);
		register(monitor.readings());
	}

	private void register(List<RedisMemory> readings) {
		for (RedisMemory memory : readings) {
			String node = memory.node();
			if (this.nodes.add(node)) {
				Gauge.builder("ratelimit.store.memory.usage", () -> usage(node))
					.description("Redis used_memory / maxmemory (NaN without maxmemory)")
					.tag("node", node)
					.register(this.registry);
				Gauge.builder("ratelimit.store.out.of.memory", () -> outOfMemory(node))
					.description("1 while Redis refuses the limiter's writes for memory")
					.tag("node", node)
					.register(this.registry);
			}
		}
	}

	private double usage(String node) {
		RedisMemory memory = reading(node);
		return (memory != null) ? memory.usage() : Double.NaN;
	}

	private double outOfMemory(String node) {
		RedisMemory memory = reading(node);
		return (memory != null && memory.outOfMemory()) ? 1 : 0;
	}

	private RedisMemory reading(String node) {
		for (RedisMemory memory : this.monitor.readings()) {
			if (memory.node().equals(node)) {
				return memory;
			}
		}
		return null;
	}

}
