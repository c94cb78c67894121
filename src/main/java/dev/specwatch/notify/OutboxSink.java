package dev.specwatch.notify;

import dev.specwatch.alerting.Transition;
import dev.specwatch.alerting.TransitionSink;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Hands transitions from the alert engine to the outbox: one intent per notifier, written durably
 * before returning. Silenced transitions produce no intent.
 */
public final class OutboxSink implements TransitionSink {
  private final Outbox outbox;
  private final List<String> notifiers;
  private final Clock clock;
  private final Runnable wake;

  public OutboxSink(Outbox outbox, List<String> notifiers, Clock clock, Runnable wake) {
    this.outbox = outbox;
    this.notifiers = List.copyOf(notifiers);
    this.clock = clock;
    this.wake = wake;
  }

  @Override
  public void deliver(Transition t) throws Exception {
    if (t.silenced()) {
      return;
    }
    Intent.Kind kind =
        t.kind() == Transition.Kind.FIRING ? Intent.Kind.FIRING : Intent.Kind.RESOLVED;
    List<Intent> intents = new ArrayList<>();
    for (String notifier : notifiers) {
      intents.add(Intent.of(notifier, kind, t, clock.instant()));
    }
    outbox.add(intents);
    wake.run();
  }
}
