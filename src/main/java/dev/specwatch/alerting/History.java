package dev.specwatch.alerting;

import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * Every transition: {@code history.jsonl} of the state directory ({@link TransitionHistory}) or the
 * shared database. Appending a transition already there (same alert id and sequence) is a no-op
 * where the store can tell. Implementations are thread-safe.
 */
public interface History {
  void append(List<Transition> transitions) throws IOException;

  /** Transitions at or after {@code from} and before {@code to}, in order. */
  List<Transition> between(Instant from, Instant to) throws IOException;
}
