package dev.specwatch.notify.slack;

import static com.slack.api.model.block.Blocks.actions;
import static com.slack.api.model.block.Blocks.context;
import static com.slack.api.model.block.composition.BlockCompositions.markdownText;
import static com.slack.api.model.block.composition.BlockCompositions.plainText;
import static com.slack.api.model.block.element.BlockElements.button;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.slack.api.Slack;
import com.slack.api.methods.MethodsClient;
import com.slack.api.methods.SlackApiException;
import com.slack.api.model.block.LayoutBlock;
import com.slack.api.model.block.element.BlockElement;
import com.slack.api.socket_mode.SocketModeClient;
import com.slack.api.socket_mode.request.InteractiveEnvelope;
import com.slack.api.socket_mode.response.AckResponse;
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Silence;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.notify.Interactions;
import dev.specwatch.notify.Silencer;
import dev.specwatch.store.KeyedStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Actions from Slack without a public URL (docs/NOTIFICATIONS.md): with an app-level token the
 * firing message carries buttons, and a Socket Mode connection (the SDK's client, a WebSocket the
 * daemon opens to Slack) receives their presses. Acknowledge stops the reminders and says who;
 * Silence 1 h / 4 h adds the same silence the web UI would, with the Slack user as its author (and
 * acknowledges). Each envelope is acknowledged to Slack first, then the message is updated to show
 * what was done. Off unless {@code app_token} is set.
 */
public final class SlackActions implements Interactions {
  private static final Logger logger = LoggerFactory.getLogger(SlackActions.class);

  static final String BLOCK = "specwatch_actions";
  static final String ACK = "specwatch_ack";
  static final String SILENCE_1H = "specwatch_silence_1h";
  static final String SILENCE_4H = "specwatch_silence_4h";
  static final String SILENCE_RESOLVED = "specwatch_silence_resolved";

  /** The longest a "until resolved" silence lasts when the alert never resolves. */
  static final Duration UNTIL_RESOLVED_AT_MOST = Duration.ofDays(7);

  private final NotifierConfig.Slack config;
  private final Slack slack;
  private final SlackThreadStore threads;
  private final KeyedStore<Transition> firing;
  private final SlackMessages.Urls urls;
  private final Silencer silencer;
  private final Clock clock;
  private final SlackPresses presses;
  private SocketModeClient client;

  SlackActions(
      NotifierConfig.Slack config,
      Slack slack,
      SlackThreadStore threads,
      KeyedStore<Transition> firing,
      SlackMessages.Urls urls,
      Silencer silencer,
      Clock clock) {
    this.config = config;
    this.slack = slack;
    this.threads = threads;
    this.firing = firing;
    this.urls = urls;
    this.silencer = silencer;
    this.clock = clock;
    this.presses = new SlackPresses(config.presses(), clock);
  }

  /** The firing message's buttons: those not used yet on this alert. */
  static List<LayoutBlock> withButtons(List<LayoutBlock> blocks, String alertId, boolean acked) {
    List<BlockElement> buttons = new ArrayList<>();
    if (!acked) {
      buttons.add(
          button(
              b -> b.actionId(ACK).text(plainText("Acknowledge")).value(alertId).style("primary")));
    }
    buttons.add(button(b -> b.actionId(SILENCE_1H).text(plainText("Silence 1 h")).value(alertId)));
    buttons.add(button(b -> b.actionId(SILENCE_4H).text(plainText("Silence 4 h")).value(alertId)));
    buttons.add(
        button(
            b ->
                b.actionId(SILENCE_RESOLVED)
                    .text(plainText("Silence until resolved"))
                    .value(alertId)));
    List<LayoutBlock> out = new ArrayList<>(blocks);
    // Before the closing context line.
    out.add(Math.max(0, out.size() - 1), actions(a -> a.blockId(BLOCK).elements(buttons)));
    return out;
  }

  /** Opens the Socket Mode connection; a failure is logged and the buttons do nothing. */
  @Override
  public void start() {
    try {
      client =
          slack.socketMode(
              config.appToken().get().reveal(), SocketModeClient.Backend.JavaWebSocket);
      client.addInteractiveEnvelopeListener(this::onEnvelope);
      client.connect();
      logger.info(
          "Slack Socket Mode connected for notifier {}: alert buttons are live", config.name());
    } catch (IOException | RuntimeException e) {
      logger.warn(
          "Slack Socket Mode for notifier {} not connected ({}): the alert buttons do nothing",
          config.name(),
          e.getClass().getSimpleName());
    }
  }

  private void onEnvelope(InteractiveEnvelope envelope) {
    // Acknowledge at once: Slack retries an envelope it has no answer to within 3 s.
    client.sendSocketModeResponse(
        AckResponse.builder().envelopeId(envelope.getEnvelopeId()).build());
    try {
      handle(envelope.getPayload());
    } catch (IOException | SlackApiException | RuntimeException e) {
      logger.warn("a Slack button press was not carried out: {}", e.getMessage());
    }
  }

  /** One block_actions payload: every specwatch button in it. */
  void handle(JsonElement payload) throws IOException, SlackApiException {
    JsonObject p = payload.getAsJsonObject();
    if (!"block_actions".equals(string(p, "type"))) {
      return;
    }
    JsonObject user = p.getAsJsonObject("user");
    String userId = string(user, "id");
    String channel =
        Optional.ofNullable(string(p.getAsJsonObject("channel"), "id"))
            .orElse(string(p.getAsJsonObject("container"), "channel_id"));
    String author =
        "Slack user "
            + Optional.ofNullable(string(user, "username"))
                .orElse(Optional.ofNullable(string(user, "name")).orElse(userId));
    for (JsonElement a : p.getAsJsonArray("actions")) {
      JsonObject action = a.getAsJsonObject();
      String id = string(action, "action_id");
      String alertId = string(action, "value");
      if (id == null || alertId == null || !id.startsWith("specwatch_")) {
        continue;
      }
      act(new Press(id, alertId, userId, channel, author));
    }
  }

  /** One button pressed: which, on which alert, by whom, in which channel. */
  record Press(String action, String alertId, String user, String channel, String author) {}

  private void act(Press press) throws IOException, SlackApiException {
    MethodsClient methods = slack.methods(config.token().get().reveal());
    Optional<SlackThreadStore.SlackThread> thread = threads.get(press.alertId());
    Optional<Transition> t = firing.get(press.alertId());
    if (thread.isEmpty() || t.isEmpty()) {
      // Resolved meanwhile (its message says so), never fired, or pressed before its post was
      // recorded: nothing to act on, and no silence that no resolve would end.
      logger.info(
          "{} from Slack by {} on {}: not carried out, the alert is not firing",
          press.action(),
          press.user(),
          press.alertId());
      tell(methods, press, "Nothing done: " + press.alertId() + " is not firing any more.");
      return;
    }
    SlackThreadStore.SlackThread th = thread.get();
    Optional<String> refused =
        presses.refusal(press.user(), press.channel(), th.channel(), methods);
    if (refused.isPresent()) {
      logger.warn(
          "{} from Slack by {} in {} on {} refused: {}",
          press.action(),
          press.user(),
          press.channel(),
          press.alertId(),
          refused.get());
      tell(methods, press, refused.get());
      return;
    }
    if (th.silenced() || (press.action().equals(ACK) && th.acknowledged() != null)) {
      tell(methods, press, "Already done: " + th.acknowledged() + ".");
      return;
    }
    Instant now = clock.instant();
    String done;
    String silenceId = null;
    if (press.action().equals(ACK)) {
      done = "Acknowledged by <@" + press.user() + "> " + at(now) + ": no more reminders";
    } else {
      boolean untilResolved = press.action().equals(SILENCE_RESOLVED);
      Duration d =
          untilResolved
              ? UNTIL_RESOLVED_AT_MOST
              : press.action().equals(SILENCE_1H) ? Duration.ofHours(1) : Duration.ofHours(4);
      AlertKey key = AlertKey.parse(press.alertId());
      Silence s =
          silencer.addSilence(
              key.recipe(),
              Optional.of(key.rule()),
              d,
              (untilResolved ? "until resolved, from Slack (" : "silenced from Slack (")
                  + press.alertId()
                  + ")",
              press.author());
      silenceId = untilResolved ? s.id() : null;
      done =
          (untilResolved
                  ? "Silenced until resolved (at most 7 days)"
                  : "Silenced for " + d.toHours() + " h")
              + " by <@"
              + press.user()
              + "> "
              + at(now)
              + (untilResolved ? "" : ", until " + at(s.endsAt()))
              + " (silence "
              + s.id()
              + ")";
    }
    logger.info("{} from Slack by {}: {}", press.action(), press.user(), press.alertId());
    SlackThreadStore.SlackThread acked =
        press.action().equals(ACK) ? th.acknowledged(done) : th.silencedBy(done);
    threads.put(press.alertId(), silenceId == null ? acked : acked.untilResolved(silenceId));
    List<LayoutBlock> blocks = SlackMessages.firing(t.get(), urls);
    if (press.action().equals(ACK)) {
      blocks = withButtons(blocks, press.alertId(), true); // the silences stay on offer
    }
    List<LayoutBlock> updated = new ArrayList<>(blocks);
    updated.add(context(c -> c.elements(List.of(markdownText(":bell: " + done)))));
    methods.chatUpdate(
        req ->
            req.channel(th.channel())
                .ts(th.ts())
                .text(SlackMessages.slackText(t.get(), now))
                .blocks(updated));
    tell(methods, press, done + ".");
  }

  /** Answers the presser alone (an ephemeral message); a failure is logged, never thrown. */
  private void tell(MethodsClient methods, Press press, String text) {
    if (press.channel() == null || press.user() == null) {
      return;
    }
    try {
      methods.chatPostEphemeral(req -> req.channel(press.channel()).user(press.user()).text(text));
    } catch (IOException | SlackApiException e) {
      logger.warn("could not answer the Slack user {}: {}", press.user(), e.getMessage());
    }
  }

  private static String at(Instant t) {
    return DateTimeFormatter.ofPattern("HH:mm 'UTC'", Locale.ROOT).format(t.atZone(ZoneOffset.UTC));
  }

  private static String string(JsonObject o, String key) {
    return o == null || !o.has(key) || o.get(key).isJsonNull() ? null : o.get(key).getAsString();
  }

  /** A silence pressed "until resolved" ends with its alert (docs/NOTIFICATIONS.md). */
  @Override
  public void transitioned(Transition t) {
    if (t.kind() == Transition.Kind.FIRING) {
      return;
    }
    Optional<String> id = threads.get(t.alertId()).map(SlackThreadStore.SlackThread::silence);
    if (id.isEmpty()) {
      return;
    }
    try {
      silencer.expireSilence(id.get());
      logger.info("{} resolved: its silence {} (until resolved) expired", t.alertId(), id.get());
    } catch (IOException e) {
      // It still ends by itself, at most a week after it was pressed.
      logger.warn(
          "{} resolved, but its silence {} could not be expired: {}",
          t.alertId(),
          id.get(),
          e.getMessage());
    }
  }

  @Override
  public void close() {
    if (client != null) {
      try {
        client.close();
      } catch (IOException e) {
        logger.debug("closing Slack Socket Mode: {}", e.getMessage());
      }
    }
  }
}
