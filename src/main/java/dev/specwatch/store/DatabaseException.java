package dev.specwatch.store;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Locale;

/**
 * A statement against the shared database failed. The message says why in a few words (the driver's
 * first sentence: "Connection to 127.0.0.1:5432 refused"), never a URL's parameters.
 */
public final class DatabaseException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String reason;

  public DatabaseException(String doing, SQLException cause) {
    super(doing + ": " + reasonOf(cause), cause);
    this.reason = reasonOf(cause);
  }

  public String reason() {
    return reason;
  }

  /** The innermost cause's first sentence, lower-case first letter. */
  static String reasonOf(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    int stop = text.indexOf(". ");
    if (stop > 0) {
      text = text.substring(0, stop);
    }
    text = text.strip();
    if (text.endsWith(".")) {
      text = text.substring(0, text.length() - 1);
    }
    return text.isEmpty()
        ? text
        : text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
  }
}
