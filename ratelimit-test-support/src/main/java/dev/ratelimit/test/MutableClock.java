package dev.ratelimit.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock for tests with microsecond resolution that moves only when told to.
 */
public final class MutableClock extends Clock {

	private final AtomicLong micros;

	public MutableClock(long startMicros) {
		this.micros = new AtomicLong(startMicros);
	}

	/** Starts at a fixed, realistic epoch time (2026-01-01T00:00:00.123456Z). */
	public static MutableClock atRealisticEpoch() {
		return new MutableClock(1_767_225_600_123_456L);
	}

	public long micros() {
		return this.micros.get();
	}

	public void setMicros(long micros) {
		this.micros.set(micros);
	}

	public void advanceMicros(long delta) {
		this.micros.addAndGet(delta);
	}

	public void advance(Duration duration) {
		advanceMicros(duration.toNanos() / 1_000);
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		throw new UnsupportedOperationException();
	}

	@Override
	public Instant instant() {
		return Instant.EPOCH.plus(this.micros.get(), ChronoUnit.MICROS);
	}

}
