/**
 * Token budgets for Spring AI: {@link dev.ratelimit.ai.TokenRateLimitAdvisor}, a {@code ChatClient} advisor that
 * reserves a rule's estimate before the model is called and settles it with the tokens the model reports, and its
 * auto-configuration ({@code ratelimit.ai.*}).
 */
@NullMarked
package dev.ratelimit.ai;

import org.jspecify.annotations.NullMarked;
