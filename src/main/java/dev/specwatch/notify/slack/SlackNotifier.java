package dev.specwatch.notify.slack;

import com.slack.api.Slack;
import com.slack.api.methods.MethodsClient;
import com.slack.api.methods.SlackApiException;
import com.slack.api.methods.SlackApiTextResponse;
import com.slack.api.methods.response.chat.ChatPostMessageResponse;
import com.slack.api.model.block.LayoutBlock;
import com.slack.api.util.json.GsonFactory;
import com.slack.api.webhook.WebhookResponse;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.notify.ChannelPace;
import dev.specwatch.notify.DeliveryResult;
import dev.specwatch.notify.Intent;
import dev.specwatch.notify.Interactions;
import dev.specwatch.notify.Notifier;
import dev.specwatch.notify.RetryAfter;
import dev.specwatch.store.KeyedStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Slack through the official SDK. Bot-token mode posts one message per alert ({@code
 * chat.postMessage}), keeps its {@code (channel, ts)}, and on resolve edits it in place ({@code
 * chat.update}) and replies in its thread; repeats while firing are thread replies. Incoming-
 * webhook mode can only post new messages. Honours 429 Retry-After, retries 5xx and transport
 * errors, paces one message per second per channel, and treats other errors as permanent.
 */
public final class SlackNotifier implements Notifier {
  /** Slack's documented per-channel posting rate. */
  static final Duration PACE = Duration.ofSeconds(1);

  /** Slack error codes worth retrying (ok:false with HTTP 200). */
  private static final Set<String> TRANSIENT =
      Set.of(
          "ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout");

  private final NotifierConfig.Slack config;
  private final Slack slack;
  private final SlackMessages.Urls urls;
  private final SlackThreadStore threads;
  private final Clock clock;

  /** Who writes to a channel next: this process, or every replica sharing the database. */
  private final ChannelPace pace;

  /** How long a write holds its channel: past the longest call (15 s), a dead holder's ends. */
  static final Duration LEASE = Duration.ofSeconds(30);

  private final SlackGroups groups;

  /** {@link Intent#progress} of a resolve whose edit of the firing message landed. */
  static final String EDITED = "edited";

  private final SlackAdoption adoption = new SlackAdoption();
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(SlackNotifier.class);

  /** A notifier of its own: pace and groups in this process's memory (commands, tests). */
  public SlackNotifier(
      NotifierConfig.Slack config, SlackMessages.Urls urls, SlackThreadStore threads, Clock clock) {
    this(config, urls, threads, KeyedStore.memory(), ChannelPace.local(), clock);
  }

  /**
   * @param groupStore the groups of storms (docs/NOTIFICATIONS.md, "Grouping")
   * @param pace shared by every notifier of the process (or of the cluster)
   */
  public SlackNotifier(
      NotifierConfig.Slack config,
      SlackMessages.Urls urls,
      SlackThreadStore threads,
      KeyedStore<SlackGroup> groupStore,
      ChannelPace pace,
      Clock clock) {
    this.config = config;
    this.slack = SlackClients.of(config.apiUrl());
    this.urls = urls;
    this.threads = threads;
    this.clock = clock;
    this.pace = pace;
    this.groups =
        new SlackGroups(
            config.name(),
            config.grouping(),
            groupStore,
            threads,
            urls,
            adoption,
            t ->
                config.appToken().isPresent()
                    ? SlackActions.withButtons(SlackMessages.firing(t, urls), t.alertId(), false)
                    : SlackMessages.firing(t, urls));
  }

  @Override
  public String name() {
    return config.name();
  }

  NotifierConfig.Slack config() {
    return config;
  }

  /** Socket Mode for this notifier's buttons; empty without an app token. */
  @Override
  public Optional<Interactions> interactions(Interactions.Context context) {
    if (config.appToken().isEmpty() || context.silencer() == null) {
      return Optional.empty();
    }
    return Optional.of(
        new SlackActions(
            config, slack, threads, context.firing(), urls, context.silencer(), clock));
  }

  /** Bot-token mode repeats as thread replies; a webhook cannot reply in a thread. */
  @Override
  public Optional<Duration> repeatInterval() {
    return config.token().isPresent() ? Optional.of(config.repeatInterval()) : Optional.empty();
  }

  /**
   * Due when the alert's thread's last post is a repeat interval old and nobody acknowledged it
   * from Slack (docs/NOTIFICATIONS.md); an alert without a thread here has nothing to reply to.
   */
  @Override
  public boolean repeatDue(Transition firing, Instant now) {
    return repeatInterval()
        .flatMap(every -> threads.get(firing.alertId()).map(th -> due(th, every, now)))
        .orElse(false);
  }

  private static boolean due(SlackThreadStore.SlackThread th, Duration every, Instant now) {
    return th.acknowledged() == null && !th.lastPostAt().plus(every).isAfter(now);
  }

  /**
   * Posts one message outside the alert flow (the weekly digest's summary); needs a bot token or a
   * webhook. Same error handling as alerts, no retries.
   */
  public DeliveryResult post(String channel, String text, List<LayoutBlock> blocks) {
    try {
      if (config.token().isPresent()) {
        return posted(
            slack
                .methods(config.token().get().reveal())
                .chatPostMessage(req -> req.channel(channel).text(text).blocks(blocks)));
      }
      String payload = GsonFactory.createSnakeCase().toJson(Map.of("text", text, "blocks", blocks));
      WebhookResponse response = slack.send(config.webhookUrl().get().reveal(), payload);
      return response.getCode() == 200
          ? DeliveryResult.delivered()
          : httpFailure(response.getCode(), retryAfter(response), response.getBody());
    } catch (SlackApiException e) {
      return httpFailure(e.getResponse().code(), e.getResponse().header("Retry-After"), null);
    } catch (IOException e) {
      return DeliveryResult.retry("Slack unreachable: " + e.getClass().getSimpleName());
    }
  }

  @Override
  public DeliveryResult send(Intent intent) {
    return send(intent, false);
  }

  @Override
  public DeliveryResult send(Intent intent, boolean uncertain) {
    Transition t = intent.transition();
    String channel = t.slackChannel().orElse(config.channel().orElse(""));
    Instant now = clock.instant();
    Optional<Instant> busy = pace.take(channel, now, LEASE);
    if (busy.isPresent()) {
      return new DeliveryResult.Paced(
          Duration.between(now, busy.get()).isNegative()
              ? Duration.ZERO
              : Duration.between(now, busy.get()));
    }
    // When the channel's next write may go: at once after a failure that wrote nothing.
    Instant next = now;
    try {
      if (uncertain && config.token().isPresent() && intent.kind() == Intent.Kind.FIRING) {
        Optional<SlackThreadStore.SlackThread> posted =
            adoption.find(slack.methods(config.token().get().reveal()), channel, intent, now);
        if (posted.isPresent()) {
          logger.info(
              "the firing message of {} was posted before a crash (ts {}): adopted, not posted"
                  + " again",
              t.alertId(),
              posted.get().ts());
          threads.put(t.alertId(), posted.get());
          return DeliveryResult.delivered();
        }
      }
      Optional<SlackGroups.Step> grouped =
          config.token().isPresent()
              ? groups.attempt(intent, channel, now, slack.methods(config.token().get().reveal()))
              : Optional.empty();
      if (grouped.isPresent()) {
        if (grouped.get().wrote()) {
          next = clock.instant().plus(PACE);
        }
        return grouped.get().result();
      }
      DeliveryResult result =
          config.token().isPresent()
              ? sendWithToken(intent, channel, now)
              : sendWithWebhook(intent, now);
      if (result instanceof DeliveryResult.Delivered
          || result instanceof DeliveryResult.Progressed) {
        next = clock.instant().plus(PACE);
      }
      return result;
    } catch (SlackApiException e) {
      DeliveryResult failure =
          httpFailure(
              e.getResponse().code(),
              e.getResponse().header("Retry-After"),
              e.getError() == null ? null : e.getError().getError());
      if (e.getResponse().code() == 429 && failure instanceof DeliveryResult.Retry retry) {
        // The channel is limited for every alert, not only this one, and for every replica:
        // none of them writes to it before.
        next = now.plus(retry.after());
      }
      return failure;
    } catch (IOException e) {
      return DeliveryResult.retry(
          "Slack unreachable: "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    } finally {
      pace.release(channel, next);
    }
  }

  private DeliveryResult sendWithToken(Intent intent, String channel, Instant now)
      throws IOException, SlackApiException {
    MethodsClient methods = slack.methods(config.token().get().reveal());
    Transition t = intent.transition();
    Optional<SlackThreadStore.SlackThread> thread = threads.get(t.alertId());
    switch (intent.kind()) {
      case FIRING -> {
        ChatPostMessageResponse r =
            methods.chatPostMessage(
                req ->
                    req.channel(channel)
                        .text(SlackMessages.slackText(t, now))
                        .blocks(
                            config.appToken().isPresent() && !t.key().specwatch()
                                ? SlackActions.withButtons(
                                    SlackMessages.firing(t, urls), t.alertId(), false)
                                : SlackMessages.firing(t, urls))
                        .metadata(SlackAdoption.metadata(intent)));
        Optional<DeliveryResult> failure = failure(r);
        if (failure.isPresent()) {
          return failure.get();
        }
        threads.put(t.alertId(), new SlackThreadStore.SlackThread(r.getChannel(), r.getTs(), now));
        return DeliveryResult.delivered();
      }
      case RESOLVED -> {
        if (thread.isEmpty()) {
          // The firing message is unknown (sent before an upgrade, or lost): post the resolve.
          return posted(
              methods.chatPostMessage(
                  req ->
                      req.channel(channel)
                          .text(SlackMessages.slackText(t, now))
                          .blocks(SlackMessages.resolved(t, urls))));
        }
        SlackThreadStore.SlackThread th = thread.get();
        if (!EDITED.equals(intent.progress())) {
          List<LayoutBlock> blocks = SlackMessages.resolved(t, urls);
          Optional<DeliveryResult> failure =
              failure(
                  methods.chatUpdate(
                      req ->
                          req.channel(th.channel())
                              .ts(th.ts())
                              .text(SlackMessages.slackText(t, now))
                              .blocks(blocks)));
          if (failure.isPresent()) {
            return failure.get();
          }
          // Two writes to one channel: the thread reply takes the next slot of the pace, and no
          // retry of it (here or on another replica) edits again.
          return new DeliveryResult.Progressed(EDITED, PACE);
        }
        DeliveryResult reply =
            posted(
                methods.chatPostMessage(
                    req ->
                        req.channel(th.channel())
                            .threadTs(th.threadTs())
                            .text(SlackMessages.reply(t, Intent.Kind.RESOLVED, now))));
        if (reply instanceof DeliveryResult.Delivered) {
          threads.remove(t.alertId());
        }
        return reply;
      }
      case REPEAT -> {
        if (thread.isEmpty()) {
          return DeliveryResult.delivered(); // resolved meanwhile: nothing to repeat
        }
        SlackThreadStore.SlackThread th = thread.get();
        DeliveryResult reply =
            posted(
                methods.chatPostMessage(
                    req ->
                        req.channel(th.channel())
                            .threadTs(th.threadTs())
                            .text(SlackMessages.reply(t, Intent.Kind.REPEAT, now))));
        if (reply instanceof DeliveryResult.Delivered) {
          threads.put(t.alertId(), th.postedAt(now));
        }
        return reply;
      }
      default -> throw new IllegalStateException("unreachable");
    }
  }

  private DeliveryResult sendWithWebhook(Intent intent, Instant now) throws IOException {
    if (intent.kind() == Intent.Kind.REPEAT) {
      return DeliveryResult.delivered();
    }
    Transition t = intent.transition();
    List<LayoutBlock> blocks =
        intent.kind() == Intent.Kind.FIRING
            ? SlackMessages.firing(t, urls)
            : SlackMessages.resolved(t, urls);
    String payload =
        GsonFactory.createSnakeCase()
            .toJson(Map.of("text", SlackMessages.slackText(t, now), "blocks", blocks));
    WebhookResponse response = slack.send(config.webhookUrl().get().reveal(), payload);
    if (response.getCode() == 200) {
      return DeliveryResult.delivered();
    }
    return httpFailure(response.getCode(), retryAfter(response), response.getBody());
  }

  /** The Retry-After header of a webhook answer (header names are case-insensitive). */
  private static String retryAfter(WebhookResponse response) {
    if (response.getHeaders() == null) {
      return null;
    }
    return response.getHeaders().entrySet().stream()
        .filter(e -> e.getKey() != null && e.getKey().equalsIgnoreCase("Retry-After"))
        .flatMap(e -> e.getValue().stream())
        .findFirst()
        .orElse(null);
  }

  static DeliveryResult posted(SlackApiTextResponse r) {
    return failure(r).orElse(DeliveryResult.delivered());
  }

  static Optional<DeliveryResult> failure(SlackApiTextResponse r) {
    if (r.isOk()) {
      return Optional.empty();
    }
    String error = r.getError() == null ? "unknown_error" : r.getError();
    if (TRANSIENT.contains(error)) {
      return Optional.of(DeliveryResult.retry("Slack answered " + error));
    }
    return Optional.of(
        new DeliveryResult.Permanent(
            "Slack answered "
                + error
                + (error.equals("channel_not_found") || error.equals("not_in_channel")
                    ? " (invite the bot to the channel, or fix notify.slack_channel)"
                    : "")));
  }

  private static DeliveryResult httpFailure(int status, String retryAfter, String detail) {
    String what =
        "Slack returned HTTP "
            + status
            + (detail == null || detail.isBlank()
                ? ""
                : " (" + detail.strip().replaceAll("\\s+", " ") + ")");
    if (status == 429) {
      // Slack always sends Retry-After with 429; at least a second when it is missing or 0.
      Duration after =
          RetryAfter.parse(retryAfter, Instant.now())
              .filter(d -> d.compareTo(Duration.ofSeconds(1)) >= 0)
              .orElse(Duration.ofSeconds(1));
      return new DeliveryResult.Retry(after, what + ", Retry-After " + after.toSeconds() + "s");
    }
    if (status >= 500) {
      return DeliveryResult.retry(what);
    }
    return new DeliveryResult.Permanent(what);
  }
}
