package dev.specwatch.store;

import java.io.IOException;

/**
 * A write refused because another process changed the record since it was read (a replica that lost
 * its work to another): not a fault of the store, and nothing to retry.
 */
public final class ConflictException extends IOException {
  private static final long serialVersionUID = 1L;

  public ConflictException(String message) {
    super(message);
  }
}
