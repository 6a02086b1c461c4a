/**
 * Local-first decisions ({@code sync: local}): each instance decides from its own view of a key and sends what it
 * admitted to the shared store in batches, learning the shared state in the same reply. See
 * {@code docs/consistency.md} for the error bound.
 */
@NullMarked
package dev.ratelimit.sync;

import org.jspecify.annotations.NullMarked;
