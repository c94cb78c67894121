package dev.specwatch.model;

import java.util.regex.Pattern;

/** One PromQL label matcher such as {@code job="vllm"} or {@code model_name=~"qwen.*"}. */
public record LabelMatcher(String name, Op op, String value) {
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  public enum Op {
    EQUAL("="),
    NOT_EQUAL("!="),
    REGEX("=~"),
    NOT_REGEX("!~");

    private final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    public String symbol() {
      return symbol;
    }
  }

  public LabelMatcher {
    if (name == null || !isValidLabelName(name)) {
      throw new IllegalArgumentException("invalid label name: " + name);
    }
    if (op == null || value == null) {
      throw new IllegalArgumentException("op and value are required");
    }
  }

  public static LabelMatcher equal(String name, String value) {
    return new LabelMatcher(name, Op.EQUAL, value);
  }

  public static boolean isValidLabelName(String name) {
    return LABEL_NAME.matcher(name).matches() && !name.startsWith("__");
  }
}
