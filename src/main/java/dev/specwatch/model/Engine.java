package dev.specwatch.model;

import java.util.Arrays;
import java.util.Optional;

/** The serving engine whose metrics a recipe is read from: the {@code engine:} key of a policy. */
public enum Engine {
  VLLM("vllm"),
  SGLANG("sglang"),
  TRTLLM("trtllm");

  private final String key;

  Engine(String key) {
    this.key = key;
  }

  /** The name used in policies, JSON and labels: {@code vllm}, {@code sglang} or {@code trtllm}. */
  public String key() {
    return key;
  }

  public static Optional<Engine> parse(String key) {
    return Arrays.stream(values()).filter(e -> e.key.equals(key)).findFirst();
  }

  @Override
  public String toString() {
    return key;
  }
}
