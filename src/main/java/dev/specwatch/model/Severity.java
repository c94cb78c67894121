package dev.specwatch.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Optional;

/** How loudly an alert is sent: the {@code severity} label of notifications. */
public enum Severity {
  INFO("info", 0),
  WARNING("warning", 1),
  CRITICAL("critical", 2);

  private final String key;
  private final int urgency;

  Severity(String key, int urgency) {
    this.key = key;
    this.urgency = urgency;
  }

  /** Louder first: critical, warning, info (stated here, not taken from the declaration order). */
  public static final java.util.Comparator<Severity> LOUDEST_FIRST =
      java.util.Comparator.comparingInt((Severity s) -> s.urgency).reversed();

  /**
   * {@code info}, {@code warning} or {@code critical}, as written in policies, labels and state.
   */
  @JsonValue
  public String key() {
    return key;
  }

  public static Optional<Severity> parse(String key) {
    return Arrays.stream(values()).filter(s -> s.key.equals(key)).findFirst();
  }

  /** The severity stored as {@code key} (state files, the outbox, the database). */
  @JsonCreator
  public static Severity of(String key) {
    return parse(key).orElseThrow(() -> new IllegalArgumentException("no severity '" + key + "'"));
  }

  @Override
  public String toString() {
    return key;
  }
}
