package dev.specwatch.model;

import java.util.Arrays;
import java.util.Optional;

/** How loudly an alert is sent: the {@code severity} label of notifications. */
public enum Severity {
  INFO("info"),
  WARNING("warning"),
  CRITICAL("critical");

  private final String key;

  Severity(String key) {
    this.key = key;
  }

  /** {@code info}, {@code warning} or {@code critical}, as written in policies and labels. */
  public String key() {
    return key;
  }

  public static Optional<Severity> parse(String key) {
    return Arrays.stream(values()).filter(s -> s.key.equals(key)).findFirst();
  }

  @Override
  public String toString() {
    return key;
  }
}
