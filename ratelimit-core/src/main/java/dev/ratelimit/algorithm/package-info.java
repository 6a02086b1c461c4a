/**
 * The reference maths of every algorithm: pure functions of (state, now, cost) to (decision, new state), with time
 * as a parameter in integer microseconds. No Spring, no I/O. This is the executable specification that the Lua
 * script is tested against, and the engine of the in-memory store.
 */
@NullMarked
package dev.ratelimit.algorithm;

import org.jspecify.annotations.NullMarked;
