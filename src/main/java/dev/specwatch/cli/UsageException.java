package dev.specwatch.cli;

/**
 * Input a command cannot act on (an unknown recipe, a missing option combination): exit code 2, the
 * message printed as {@code specwatch <command>: <message>}.
 */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
