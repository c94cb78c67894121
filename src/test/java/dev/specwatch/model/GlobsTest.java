package dev.specwatch.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Silence patterns: {@code *} is any run of characters, everything else literal, always. */
class GlobsTest {
  @Test
  void starMatchesAnyRunAndEverythingElseIsLiteral() {
    assertThat(Globs.matches("qwen*", "qwen3.8-27b-nvfp4")).isTrue();
    assertThat(Globs.matches("*nvfp4", "qwen3.8-27b-nvfp4")).isTrue();
    assertThat(Globs.matches("q*8*fp4", "qwen3.8-27b-nvfp4")).isTrue();
    assertThat(Globs.matches("*", "")).isTrue();
    assertThat(Globs.matches("**", "x")).isTrue();
    assertThat(Globs.matches("", "")).isTrue();
    assertThat(Globs.matches("", "x")).isFalse();
    assertThat(Globs.matches("qwen", "qwen3")).isFalse();
    assertThat(Globs.matches("a*b*c", "aXbYc")).isTrue();
    assertThat(Globs.matches("a*b*c", "aXbYcZ")).isFalse();
    assertThat(Globs.matches("*ab", "aab")).isTrue();
    // Regex metacharacters are themselves.
    assertThat(Globs.matches("qwen3.8", "qwen318")).isFalse();
    assertThat(Globs.matches("a+b", "a+b")).isTrue();
    assertThat(Globs.matches("a+b", "aab")).isFalse();
  }

  @Test
  void aPatternHoldingBackslashEInjectsNoRegex() {
    // Before, \Q…\E quoting: "\E.*\Q" became the regex .* and silenced every recipe, and
    // "\E(.+a){12}c\Q" pinned a core per request on a 60-character name.
    assertThat(Globs.matches("\\E.*\\Q", "qwen3.8-27b-nvfp4")).isFalse();
    assertThat(Globs.matches("\\E.*\\Q", "\\E.*\\Q")).isTrue();
    String evil = "\\E(.+a){12}c\\Q";
    assertThat(Globs.matches(evil, "a".repeat(60))).isFalse();
    assertThat(Globs.matches(evil, evil)).isTrue();
    // Many stars against a long near-miss: the answer, not a backtracking storm.
    assertThat(Globs.matches("*a*a*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(5000))).isFalse();
  }
}
