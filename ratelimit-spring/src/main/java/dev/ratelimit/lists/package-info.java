/**
 * Allow and deny lists ({@code ratelimit.lists.*}): subjects and client networks that skip rules or are refused
 * before any rule, kept in a local copy on each instance so that a request costs no store call to check them.
 */
@NullMarked
package dev.ratelimit.lists;

import org.jspecify.annotations.NullMarked;
