package dev.specwatch.model;

/**
 * A credential (token, password). {@link #toString()} never reveals it, so a secret that ends up in
 * a log line, an exception or a record's toString prints as {@code <secret>}. Call {@link
 * #reveal()} only where the value is put on the wire. Every secret is registered with {@link
 * Redaction}, so an upstream that quotes it back is scrubbed before its text goes anywhere.
 */
public final class Secret {
  private final String value;

  private Secret(String value) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("a secret must not be empty");
    }
    this.value = value;
    Redaction.register(value);
  }

  public static Secret of(String value) {
    return new Secret(value);
  }

  public String reveal() {
    return value;
  }

  @Override
  public String toString() {
    return "<secret>";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secret s && s.value.equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }
}
