package dev.specwatch.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A state file could not be written. The message names the file and the reason ("permission
 * denied"), never the temp file the write went through.
 */
public final class StateWriteException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String reason;

  public StateWriteException(Path file, IOException cause) {
    super("cannot write " + file + ": " + StateHealth.reason(cause), cause);
    this.reason = StateHealth.reason(cause);
  }

  /** Why, in a few words. */
  public String reason() {
    return reason;
  }
}
