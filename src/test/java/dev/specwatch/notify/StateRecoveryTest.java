package dev.specwatch.notify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.AlertService;
import dev.specwatch.alerting.AlertState;
import dev.specwatch.alerting.FileStateStore;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.SilenceStore;
import dev.specwatch.alerting.Transition;
import dev.specwatch.alerting.TransitionHistory;
import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.notify.slack.SlackMessages;
import dev.specwatch.signals.Evaluator;
import dev.specwatch.store.StateHealth;
import dev.specwatch.testing.FakePrometheus;
import dev.specwatch.testing.MutableClock;
import dev.specwatch.testing.Transitions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged state: every corrupt file is moved aside with its name reported, the process starts, and
 * what can be rebuilt is. Before issue #12 a corrupt slack-messages.json or firing.json stopped the
 * daemon (exit 1, Jackson's text only), a corrupt silences.json dropped every silence, and a lost
 * alerts.json restarted sequence numbers at 1, overwriting an undelivered outbox entry.
 */
class StateRecoveryTest {
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  @TempDir Path dir;
  final MutableClock clock = new MutableClock(T0);
  final StateHealth health = new StateHealth(Path.of("unused"));

  static Transition transition(long seq, String alert, Transition.Kind kind) {
    return Transitions.acceptance(seq, alert, kind, T0);
  }

  static List<String> corruptFiles(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.contains(".corrupt-"))
          .sorted()
          .toList();
    }
  }

  @Test
  void corruptNotificationFilesAreMovedAsideAndFiringIsRebuiltFromHistory() throws Exception {
    Files.writeString(dir.resolve("slack-messages.json"), "{\"a\": {\"channel\": \"C1\", \"ts");
    Files.writeString(dir.resolve("firing.json"), "\u0000\u0000garbage");
    new TransitionHistory(dir)
        .append(
            List.of(
                transition(1, "qwen/a", Transition.Kind.FIRING),
                transition(2, "qwen/b", Transition.Kind.FIRING),
                transition(3, "qwen/b", Transition.Kind.RESOLVED)));

    NotificationStores stores = NotificationStores.open(dir, health, clock);

    assertThat(corruptFiles(dir))
        .containsExactly(
            "firing.json.corrupt-20261201T100000Z", "slack-messages.json.corrupt-20261201T100000Z");
    assertThat(health.recoveries())
        .extracting(StateHealth.Recovery::file)
        .containsExactlyInAnyOrder(
            dir.resolve("slack-messages.json").toString(), dir.resolve("firing.json").toString());
    assertThat(stores.threads().all()).isEmpty();
    assertThat(stores.firing().all()).as("still firing per history").containsOnlyKeys("qwen/a");
  }

  @Test
  void aCorruptSilencesFileKeepsEveryIntactSilence() throws Exception {
    SilenceStore store = new SilenceStore(dir, health);
    for (String id : List.of("s1", "s2", "s3")) {
      store.add(new Silence(id, "qwen", Optional.empty(), T0, T0.plusSeconds(3600), "work", "ops"));
    }
    String text = Files.readString(store.file());
    // One byte of s2's entry goes bad.
    Files.writeString(store.file(), text.replaceFirst("\"s2\",", "\"s2\" !"));

    List<Silence> loaded = store.load();

    assertThat(loaded).extracting(Silence::id).containsExactly("s1", "s3");
    assertThat(health.recoveries()).hasSize(1);
    assertThat(health.recoveries().get(0).lost())
        .contains("2 silence(s) salvaged")
        .contains("1 damaged entry lost");
    assertThat(store.load()).as("rewritten with what was salvaged").hasSize(2);
    assertThat(health.recoveries()).as("reported once").hasSize(1);
  }

  @Test
  void sequenceNumbersNeverRepeatAfterTheStateIsLostAndNoOutboxEntryIsOverwritten()
      throws Exception {
    FileStateStore store = new FileStateStore(dir, clock, health);
    AlertState first = store.load();
    store.save(first.withNextSequence(first.nextSequence() + 5));
    long handedOut = first.nextSequence() + 4;
    Files.move(store.file(), dir.resolve("alerts.json.bak"));
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.load().nextSequence()).isGreaterThan(handedOut);

    FileOutbox outbox = new FileOutbox(dir, seq -> Optional.empty(), health, clock);
    Intent a =
        Intent.of("slack", Intent.Kind.FIRING, transition(9, "qwen/a", Transition.Kind.FIRING), T0);
    Intent b =
        Intent.of("slack", Intent.Kind.FIRING, transition(9, "qwen/b", Transition.Kind.FIRING), T0);
    outbox.add(List.of(a));
    outbox.add(List.of(b));
    assertThat(outbox.pending())
        .extracting(i -> i.transition().alertId())
        .containsExactly("qwen/a", "qwen/b");
  }

  @Test
  void aCorruptOutboxEntryIsRebuiltFromTheHistoryOrReportedLost() throws Exception {
    TransitionHistory history = new TransitionHistory(dir);
    Transition kept = transition(5, "qwen/a", Transition.Kind.FIRING);
    history.append(List.of(kept));
    FileOutbox outbox = new FileOutbox(dir, history::bySequence, health, clock);
    Intent rebuildable = Intent.of("slack", Intent.Kind.FIRING, kept, T0);
    Intent lost =
        Intent.of("slack", Intent.Kind.FIRING, transition(6, "qwen/b", Transition.Kind.FIRING), T0);
    outbox.add(List.of(rebuildable, lost));
    Files.writeString(outbox.dir().resolve(rebuildable.id() + ".json"), "{\"id\": ");
    Files.writeString(outbox.dir().resolve(lost.id() + ".json"), "{\"id\": ");

    List<Intent> pending = outbox.pending();

    assertThat(pending).extracting(Intent::transition).containsExactly(kept);
    assertThat(pending.get(0).id()).isEqualTo(rebuildable.id());
    assertThat(health.recoveries())
        .singleElement()
        .satisfies(r -> assertThat(r.file()).endsWith(lost.id() + ".json"))
        .satisfies(r -> assertThat(r.lost()).contains("this notification is lost"));
    assertThat(outbox.pending()).as("rebuilt durably").hasSize(1);
  }

  @Test
  void aRecoveredStateFileRaisesAStateRecoveredSelfAlertForAnHour() throws Exception {
    Files.writeString(dir.resolve("alerts.json"), "{\"version\": 1, \"alerts\": {tru");
    FileStateStore store = new FileStateStore(dir, clock, health);
    List<Transition> sent = new ArrayList<>();
    AlertService service =
        AlertService.builder(
                new Evaluator(FakePrometheus.of(q -> List.of()), clock),
                new AlertEngine(SpecwatchConfig.Alerting.defaults()),
                clock)
            .files(dir)
            .store(store)
            .silences(new SilenceStore(dir, health))
            .sink(sent::add)
            .health(health)
            .build();
    Policy policy =
        Policy.builder("q", Map.of("model_name", "q"), 3)
            .acceptanceRate(Threshold.below(0.4))
            .build();
    service.runOnce(List.of(policy), Duration.ofMinutes(5));
    assertThat(sent)
        .singleElement()
        .satisfies(t -> assertThat(t.alertId()).isEqualTo("specwatch/state_recovered"))
        .satisfies(t -> assertThat(t.kind()).isEqualTo(Transition.Kind.FIRING))
        .satisfies(t -> assertThat(t.reason()).contains("alerts.json was damaged and moved to"));
    clock.advance(Duration.ofMinutes(30));
    service.runOnce(List.of(policy), Duration.ofMinutes(5));
    assertThat(sent).hasSize(1);
    clock.advance(Duration.ofMinutes(31));
    service.runOnce(List.of(policy), Duration.ofMinutes(5));
    assertThat(sent)
        .extracting(Transition::kind)
        .containsExactly(Transition.Kind.FIRING, Transition.Kind.RESOLVED);
  }

  @Test
  void selfAlertsReadAsWhatIsWrongNotAsARegression() {
    Transition t =
        Transition.builder(AlertKey.parse(AlertEngine.DATASOURCE_ALERT), Transition.Kind.FIRING, T0)
            .sequence(3)
            .reason("http://prometheus:9090/api/v1/query: connection refused")
            .value(null)
            .threshold(0)
            .window(Duration.ofMinutes(5))
            .since(T0)
            .severity(dev.specwatch.model.Severity.CRITICAL)
            .build();
    assertThat(SlackMessages.text(t, T0))
        .isEqualTo(
            "[CRITICAL] specwatch cannot query its datasource:"
                + " http://prometheus:9090/api/v1/query: connection refused")
        .doesNotContain("MTP efficiency regressed")
        .doesNotContain(" * ");
    assertThat(SlackMessages.firing(t, SlackMessages.Urls.none()).toString())
        .contains("specwatch cannot query its datasource")
        .doesNotContain("Value vs threshold");
  }

  @Test
  void anIntentDeliveredSinceItWasListedCannotBeClaimed() throws Exception {
    FileOutbox outbox = new FileOutbox(dir, seq -> Optional.empty(), health, clock);
    Intent i =
        Intent.of("slack", Intent.Kind.FIRING, transition(9, "qwen/a", Transition.Kind.FIRING), T0);
    outbox.add(List.of(i));
    Intent listed = outbox.pending().get(0);
    // Another worker (the config before a reload) delivers it meanwhile.
    assertThat(outbox.claim(i)).isTrue();
    outbox.delivered(i);
    outbox.release(i);
    assertThat(outbox.claim(listed)).as("delivered: must not be sent again").isFalse();
  }
}
