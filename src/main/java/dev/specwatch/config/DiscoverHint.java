package dev.specwatch.config;

import java.nio.file.Path;

/** What to do about a policies directory that does not exist: the first hour's usual stall. */
final class DiscoverHint {
  private DiscoverHint() {}

  static String of(Path dir) {
    return " (relative to the config file; create it, or write a policy per model into it with"
        + " `specwatch discover --config FILE --write "
        + dir
        + "`)";
  }
}
