package dev.specwatch.notify.slack;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Secret;
import dev.specwatch.notify.NotifiersTest;
import dev.specwatch.notify.Silencer;
import dev.specwatch.store.KeyedStore;
import dev.specwatch.testing.FakeSlackApi;
import dev.specwatch.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may press an alert message's buttons, what each press is told, and the message's buttons
 * after any sequence of presses: the block_actions payloads Slack sends, handed to SlackActions,
 * against the Web API stand-in.
 */
class SlackPressesTest {
  static final String ALERT = "qwen/acceptance_rate";
  static final String CHANNEL = "C0ALERTS";

  @TempDir Path dir;
  final MutableClock clock = new MutableClock(Instant.parse("2026-12-03T10:00:00Z"));
  final List<String> silences = new ArrayList<>();
  final List<String> expired = new ArrayList<>();
  final KeyedStore<Transition> firing = KeyedStore.memory();
  SlackThreadStore threads;

  final Silencer silencer =
      new Silencer() {
        @Override
        public Silence addSilence(
            String recipe, Optional<String> rule, Duration d, String comment, String author) {
          String id = "s" + (silences.size() + 1);
          silences.add(id + " " + recipe + "/" + rule.orElse("*") + " " + d.toHours() + "h");
          return new Silence(
              id, recipe, rule, clock.instant(), clock.instant().plus(d), comment, author);
        }

        @Override
        public boolean expireSilence(String id) {
          expired.add(id);
          return true;
        }
      };

  @BeforeEach
  void firingWithAMessage() throws IOException {
    threads = new SlackThreadStore(dir).of("slack", false);
    threads.put(ALERT, new SlackThreadStore.SlackThread(CHANNEL, "1764504000.1", clock.instant()));
    firing.put(ALERT, NotifiersTest.transition());
  }

  private SlackActions actions(FakeSlackApi slack, NotifierConfig.Slack.Presses presses) {
    NotifierConfig.Slack config =
        new NotifierConfig.Slack(
            "slack",
            Optional.of(Secret.of("xoxb-presses")),
            Optional.empty(),
            Optional.of("#mtp"),
            Optional.of(slack.apiUrl()),
            Duration.ofHours(4),
            Optional.of(Secret.of("xapp-presses")),
            NotifierConfig.Slack.Grouping.OFF,
            presses);
    return new SlackActions(
        config,
        SlackClients.of(config.apiUrl()),
        threads,
        firing,
        SlackMessages.Urls.none(),
        silencer,
        clock);
  }

  private static void press(SlackActions a, String action, String user, String channel)
      throws Exception {
    a.handle(
        JsonParser.parseString(
            "{\"type\":\"block_actions\",\"user\":{\"id\":\""
                + user
                + "\",\"username\":\"someone\"},\"channel\":{\"id\":\""
                + channel
                + "\"},\"actions\":[{\"action_id\":\""
                + action
                + "\",\"value\":\""
                + ALERT
                + "\"}]}"));
  }

  /** What the presser was told, in order. */
  private static List<String> told(FakeSlackApi slack) {
    return slack.calls().stream()
        .filter(c -> c.method().equals("chat.postEphemeral"))
        .map(c -> c.params().get("user") + ": " + c.params().get("text"))
        .toList();
  }

  private static List<FakeSlackApi.Call> updates(FakeSlackApi slack) {
    return slack.calls().stream().filter(c -> c.method().equals("chat.update")).toList();
  }

  @Test
  void onlyTheConfiguredPeopleInTheAlertsChannelMayPressAndOthersAreTold() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      slack.userGroup("S0ONCALL", "U0MEMBER");
      SlackActions a =
          actions(
              slack,
              new NotifierConfig.Slack.Presses(List.of("U0LEAD"), List.of("S0ONCALL"), List.of()));
      press(a, SlackActions.SILENCE_4H, "U0STRANGER", CHANNEL);
      press(a, SlackActions.SILENCE_4H, "U0LEAD", "C0ELSEWHERE");
      assertThat(silences).as("before: both silenced paging").isEmpty();
      assertThat(updates(slack)).isEmpty();
      assertThat(told(slack))
          .hasSize(2)
          .satisfiesExactly(
              t -> assertThat(t).startsWith("U0STRANGER: Not allowed: only the people"),
              t -> assertThat(t).startsWith("U0LEAD: Not allowed: specwatch takes presses only"));

      press(a, SlackActions.ACK, "U0MEMBER", CHANNEL);
      assertThat(updates(slack)).as("a member of the user group").hasSize(1);
      press(a, SlackActions.SILENCE_1H, "U0LEAD", CHANNEL);
      assertThat(silences).containsExactly("s1 qwen/acceptance_rate 1h");
      assertThat(told(slack).get(2)).startsWith("U0MEMBER: Acknowledged by <@U0MEMBER>");
      assertThat(told(slack).get(3)).startsWith("U0LEAD: Silenced for 1 h by <@U0LEAD>");
    }
  }

  @Test
  void aGroupWhoseMembersCannotBeReadRefusesSayingSo() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SlackActions a =
          actions(slack, new NotifierConfig.Slack.Presses(List.of(), List.of("S0GONE"), List.of()));
      press(a, SlackActions.ACK, "U0ANY", CHANNEL);
      assertThat(updates(slack)).isEmpty();
      assertThat(told(slack)).singleElement().asString().contains("could not read the members");
    }
  }

  @Test
  void aPressOnAnAlertThatIsNotFiringSilencesNothingAndSaysSo() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SlackActions a = actions(slack, NotifierConfig.Slack.Presses.IN_CHANNEL);
      firing.remove(ALERT); // resolved a moment before the press
      press(a, SlackActions.SILENCE_RESOLVED, "U0ONCALL", CHANNEL);
      assertThat(silences).as("before: a 7-day silence no resolve would end").isEmpty();
      assertThat(told(slack))
          .containsExactly("U0ONCALL: Nothing done: " + ALERT + " is not firing any more.");
    }
  }

  @Test
  void theButtonsStayConsistentWhateverTheOrderOfPresses() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SlackActions a = actions(slack, NotifierConfig.Slack.Presses.IN_CHANNEL);
      press(a, SlackActions.SILENCE_RESOLVED, "U0A", CHANNEL);
      assertThat(updates(slack)).hasSize(1);
      assertThat(updates(slack).get(0).params().get("blocks")).doesNotContain("specwatch_");
      press(a, SlackActions.ACK, "U0B", CHANNEL);
      press(a, SlackActions.SILENCE_4H, "U0C", CHANNEL);
      assertThat(updates(slack))
          .as("before: Ack after Silence put the Silence buttons back")
          .hasSize(1);
      assertThat(silences).as("one silence, not two").hasSize(1);
      assertThat(told(slack))
          .hasSize(3)
          .element(1)
          .asString()
          .startsWith("U0B: Already done: Silenced until resolved");

      // Acknowledged, then a silence: the silence buttons stay until one is used.
      threads.put(
          ALERT, new SlackThreadStore.SlackThread(CHANNEL, "1764504000.2", clock.instant()));
      press(a, SlackActions.ACK, "U0A", CHANNEL);
      assertThat(updates(slack).get(1).params().get("blocks"))
          .doesNotContain("specwatch_ack")
          .contains("specwatch_silence_1h");
      press(a, SlackActions.ACK, "U0B", CHANNEL);
      assertThat(updates(slack)).as("acknowledged once").hasSize(2);
      press(a, SlackActions.SILENCE_1H, "U0B", CHANNEL);
      assertThat(updates(slack).get(2).params().get("blocks")).doesNotContain("specwatch_");
      assertThat(silences).hasSize(2);

      // The silence pressed "until resolved" ends when the alert resolves.
      a.transitioned(
          Transition.builder(
                  NotifiersTest.transition().key(), Transition.Kind.RESOLVED, clock.instant())
              .build());
      assertThat(expired).as("the second message's silence was for 1 h: nothing to end").isEmpty();
    }
  }

  @Test
  void theDefaultTakesPressesFromTheAlertsChannelOnly() throws Exception {
    try (FakeSlackApi slack = new FakeSlackApi()) {
      SlackActions a = actions(slack, NotifierConfig.Slack.Presses.IN_CHANNEL);
      press(a, SlackActions.ACK, "U0X", "C0OTHER");
      assertThat(updates(slack)).isEmpty();
      press(a, SlackActions.ACK, "U0X", CHANNEL);
      assertThat(updates(slack)).hasSize(1);
      assertThat(told(slack).get(0))
          .isEqualTo("U0X: Not allowed: specwatch takes presses only in the alert's own channel.");
    }
  }
}
