/**
 * The auto-configuration of the Spring AI advisor: {@code ratelimit.ai.*}.
 */
@NullMarked
package dev.ratelimit.ai.autoconfigure;

import org.jspecify.annotations.NullMarked;
