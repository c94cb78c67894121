package dev.specwatch.notify.slack;

import com.slack.api.methods.MethodsClient;
import com.slack.api.methods.SlackApiException;
import com.slack.api.methods.response.chat.ChatPostMessageResponse;
import com.slack.api.model.block.LayoutBlock;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.notify.ChannelPace;
import dev.specwatch.notify.DeliveryResult;
import dev.specwatch.notify.Intent;
import dev.specwatch.store.KeyedStore;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grouping of one Slack notifier (docs/NOTIFICATIONS.md, "Grouping"): alerts that fire for one
 * channel within {@code group_wait} of the first become one message listing them, edited in place
 * as members join and recover (at most once a {@code group_interval}), with each member's detail
 * (its signals, its buttons, its reminders) as a reply in the message's thread and one reply per
 * batch of recoveries. Fewer than {@code threshold} alerts within the wait are sent one message
 * each, exactly as without grouping.
 *
 * <p>Every attempt makes at most one Slack write and is called holding the channel's slot of the
 * {@link ChannelPace}, so the group's read-modify-write is exclusive across the replicas that share
 * the database; what landed is recorded in the group before the next write, so no retry posts or
 * edits again. Slack calls grow with messages and members (a post, an edit per interval, a detail
 * reply per member, a reply per batch of recoveries), not with recipes times retries.
 */
final class SlackGroups {
  private static final Logger logger = LoggerFactory.getLogger(SlackGroups.class);

  /** A group whose every member is done is forgotten; one left behind (a dropped resolve) later. */
  private static final Duration FORGET_CLOSED = Duration.ofDays(7);

  /** A group message lists at most this many members; the rest are in its thread. */
  static final int LISTED = 40;

  private final String notifier;
  private final NotifierConfig.Slack.Grouping grouping;
  private final KeyedStore<SlackGroup> store;
  private final SlackThreadStore threads;
  private final Function<Transition, List<LayoutBlock>> detail;
  private final SlackMessages.Urls urls;
  private final SlackAdoption adoption;

  /**
   * @param detail a member's detail reply: its firing message, with buttons where Socket Mode is on
   */
  SlackGroups(
      String notifier,
      NotifierConfig.Slack.Grouping grouping,
      KeyedStore<SlackGroup> store,
      SlackThreadStore threads,
      SlackMessages.Urls urls,
      SlackAdoption adoption,
      Function<Transition, List<LayoutBlock>> detail) {
    this.notifier = notifier;
    this.adoption = adoption;
    this.urls = urls;
    this.grouping = grouping;
    this.store = store;
    this.threads = threads;
    this.detail = detail;
  }

  /**
   * What one attempt did.
   *
   * @param wrote whether it wrote to Slack (the channel's next write then waits a pace)
   */
  record Step(DeliveryResult result, boolean wrote) {
    static Optional<Step> quiet(DeliveryResult result) {
      return Optional.of(new Step(result, false));
    }

    static Optional<Step> wrote(DeliveryResult result) {
      return Optional.of(new Step(result, true));
    }
  }

  /**
   * One attempt of {@code intent} to {@code channel}; empty when it goes as without grouping
   * (specwatch's own alerts, a lone alert, a resolve of an alert sent alone, repeats).
   */
  Optional<Step> attempt(Intent intent, String channel, Instant now, MethodsClient methods)
      throws IOException, SlackApiException {
    Transition t = intent.transition();
    if (!grouping.enabled() || t.key().specwatch() || intent.kind() == Intent.Kind.REPEAT) {
      return Optional.empty();
    }
    Map<String, SlackGroup> groups = groupsOf(channel, now);
    Optional<Map.Entry<String, SlackGroup>> mine =
        groups.entrySet().stream()
            .filter(e -> e.getValue().members().containsKey(t.alertId()))
            .findFirst();
    if (intent.kind() == Intent.Kind.RESOLVED) {
      return mine.isEmpty() || !mine.get().getValue().posted()
          ? Optional.empty()
          : resolve(mine.get().getKey(), mine.get().getValue(), t, now, methods);
    }
    String key;
    SlackGroup group;
    if (mine.isPresent()) {
      key = mine.get().getKey();
      group = mine.get().getValue();
    } else {
      Optional<Map.Entry<String, SlackGroup>> open =
          groups.entrySet().stream()
              .filter(e -> e.getValue().open())
              .min(Comparator.comparing(e -> e.getValue().openedAt()));
      if (open.isPresent()) {
        key = open.get().getKey();
        group = open.get().getValue();
      } else {
        key = notifier + "|" + channel + "|" + intent.id();
        Instant sendAt = intent.createdAt().plus(grouping.groupWait());
        group = SlackGroup.waiting(key, channel, intent.createdAt(), sendAt);
      }
      group = group.with(t.alertId(), SlackGroup.Member.of(t));
    }
    return fire(key, group, t, now, methods);
  }

  private Optional<Step> fire(
      String key, SlackGroup joined, Transition t, Instant now, MethodsClient methods)
      throws IOException, SlackApiException {
    SlackGroup group =
        !joined.posted() && joined.postingAt() != null ? adopted(key, joined, methods) : joined;
    if (!group.posted()) {
      if (now.isBefore(group.sendAt())) {
        store.put(key, group);
        return Step.quiet(new DeliveryResult.Waiting(Duration.between(now, group.sendAt())));
      }
      if (group.members().size() < grouping.threshold()) {
        // Not a storm: every member goes alone, as without grouping.
        store.remove(key);
        return Optional.empty();
      }
      // Recorded first: a crash between Slack's acceptance and the record of its ts then looks
      // for the message (its metadata names the group) instead of posting it again.
      SlackGroup posting = group.posting(now);
      store.put(key, posting);
      ChatPostMessageResponse r =
          methods.chatPostMessage(
              req ->
                  req.channel(posting.channel())
                      .text(SlackMessages.escape(SlackGroupMessages.text(posting)))
                      .blocks(SlackGroupMessages.blocks(posting, grouping, urls))
                      .metadata(SlackAdoption.groupMetadata(key)));
      Optional<DeliveryResult> failure = SlackNotifier.failure(r);
      if (failure.isPresent()) {
        store.put(key, group.notPosting()); // Slack answered: nothing landed
        return Step.wrote(failure.get());
      }
      store.put(key, group.shown(r.getTs(), now));
      logger.info(
          "{} alerts of {} grouped in one Slack message (ts {})",
          group.members().size(),
          group.channel(),
          r.getTs());
      return Step.wrote(new DeliveryResult.Waiting(SlackNotifier.PACE));
    }
    SlackGroup.Member member = group.members().get(t.alertId());
    if (!member.listed()) {
      Instant editAt = group.lastEditAt().plus(grouping.groupInterval());
      if (now.isBefore(editAt)) {
        store.put(key, group);
        return Step.quiet(new DeliveryResult.Waiting(Duration.between(now, editAt)));
      }
      return edit(key, group, now, methods);
    }
    if (member.detailTs() == null) {
      ChatPostMessageResponse r =
          methods.chatPostMessage(
              req ->
                  req.channel(group.channel())
                      .threadTs(group.ts())
                      .text(SlackMessages.slackText(t, now))
                      .blocks(detail.apply(t)));
      Optional<DeliveryResult> failure = SlackNotifier.failure(r);
      if (failure.isPresent()) {
        return Step.wrote(failure.get());
      }
      store.put(key, group.with(t.alertId(), member.withDetail(r.getTs())));
      threads.put(
          t.alertId(),
          SlackThreadStore.SlackThread.reply(group.channel(), r.getTs(), group.ts(), now));
      return Step.wrote(DeliveryResult.delivered());
    }
    return Step.quiet(DeliveryResult.delivered()); // landed before a crash: nothing left
  }

  /**
   * A group whose post began before a crash: its message, when Slack has it, adopted as posted then
   * (the members of the group as it was posted are listed on it; who joined since is not).
   */
  private SlackGroup adopted(String key, SlackGroup group, MethodsClient methods) {
    Optional<String> ts = adoption.findGroup(methods, group.channel(), key, group.postingAt());
    if (ts.isEmpty()) {
      return group;
    }
    SlackGroup out = store.get(key).orElse(group).shown(ts.get(), group.postingAt());
    for (Map.Entry<String, SlackGroup.Member> m : group.members().entrySet()) {
      if (!out.members().containsKey(m.getKey())) {
        out = out.with(m.getKey(), m.getValue());
      }
    }
    store.put(key, out);
    logger.info(
        "the group message of {} alerts in {} was posted before a crash (ts {}): adopted, not"
            + " posted again",
        out.members().size(),
        out.channel(),
        ts.get());
    return out;
  }

  private Optional<Step> resolve(
      String key, SlackGroup group, Transition t, Instant now, MethodsClient methods)
      throws IOException, SlackApiException {
    SlackGroup.Member member = group.members().get(t.alertId());
    if (member.firing()) {
      group = group.with(t.alertId(), member.asResolved(t));
      member = group.members().get(t.alertId());
    }
    if (!member.resolveShown()) {
      Instant editAt = group.lastEditAt().plus(grouping.groupInterval());
      boolean last = group.members().values().stream().noneMatch(SlackGroup.Member::firing);
      // The last recovery is shown at once (one more slot of the pace): the storm is over.
      if (now.isBefore(editAt) && !last) {
        store.put(key, group);
        return Step.quiet(new DeliveryResult.Waiting(Duration.between(now, editAt)));
      }
      return edit(key, group, now, methods);
    }
    boolean wrote = false;
    if (group.unreplied().contains(t.alertId())) {
      SlackGroup shown = group;
      DeliveryResult reply =
          SlackNotifier.posted(
              methods.chatPostMessage(
                  req ->
                      req.channel(shown.channel())
                          .threadTs(shown.ts())
                          .text(SlackGroupMessages.recovered(shown))));
      if (!(reply instanceof DeliveryResult.Delivered)) {
        return Step.wrote(reply);
      }
      group = group.replied();
      wrote = true;
    }
    group = group.with(t.alertId(), member.asFinished());
    threads.remove(t.alertId());
    if (group.finished()) {
      store.remove(key);
    } else {
      store.put(key, group);
    }
    return Optional.of(new Step(DeliveryResult.delivered(), wrote));
  }

  /** Edits the group message to show every member as it is now; the next write waits a pace. */
  private Optional<Step> edit(String key, SlackGroup group, Instant now, MethodsClient methods)
      throws IOException, SlackApiException {
    Optional<DeliveryResult> failure =
        SlackNotifier.failure(
            methods.chatUpdate(
                req ->
                    req.channel(group.channel())
                        .ts(group.ts())
                        .text(SlackMessages.escape(SlackGroupMessages.text(group)))
                        .blocks(SlackGroupMessages.blocks(group, grouping, urls))));
    if (failure.isPresent()) {
      return Step.wrote(failure.get());
    }
    store.put(key, group.shown(group.ts(), now));
    return Step.wrote(new DeliveryResult.Waiting(SlackNotifier.PACE));
  }

  /** This notifier's groups of the channel; closed ones left behind long ago are forgotten. */
  private Map<String, SlackGroup> groupsOf(String channel, Instant now) {
    Map<String, SlackGroup> out = new java.util.TreeMap<>();
    String prefix = notifier + "|" + channel + "|";
    for (Map.Entry<String, SlackGroup> e : store.all().entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        continue;
      }
      SlackGroup g = e.getValue();
      if (!g.open() && g.lastEditAt() != null && g.lastEditAt().plus(FORGET_CLOSED).isBefore(now)) {
        store.remove(e.getKey());
        continue;
      }
      out.put(e.getKey(), g);
    }
    return out;
  }
}
