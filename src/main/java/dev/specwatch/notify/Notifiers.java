package dev.specwatch.notify;

import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.notify.slack.SlackGroup;
import dev.specwatch.notify.slack.SlackMessages;
import dev.specwatch.notify.slack.SlackNotifier;
import dev.specwatch.notify.slack.SlackThreadStore;
import dev.specwatch.store.KeyedStore;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds every configured notifier: one branch per sealed config type (Java 17 has no pattern
 * switch), and NotifiersTest checks that every type is wired.
 */
public final class Notifiers {
  private Notifiers() {}

  /** Notifiers of a one-shot command: Slack's groups and pace in memory. */
  public static Map<String, Notifier> create(
      SpecwatchConfig config, SlackThreadStore threads, Clock clock) {
    return create(config, threads, KeyedStore.memory(), ChannelPace.local(), clock);
  }

  /**
   * @param groups Slack's groups of storms, durable
   * @param pace who writes to a Slack channel next (the process's or the cluster's)
   */
  public static Map<String, Notifier> create(
      SpecwatchConfig config,
      SlackThreadStore threads,
      KeyedStore<SlackGroup> groups,
      ChannelPace pace,
      Clock clock) {
    Map<String, Notifier> out = new LinkedHashMap<>();
    String legacyOwner = legacyOwner(config);
    for (NotifierConfig n : config.notifiers()) {
      out.put(n.name(), create(n, config, threads, groups, pace, clock, legacyOwner));
    }
    return out;
  }

  /**
   * The Slack notifier that owns messages stored before they were keyed by notifier: the first with
   * a bot token; empty when there is none.
   */
  static String legacyOwner(SpecwatchConfig config) {
    return config.notifiers().stream()
        .filter(n -> n instanceof NotifierConfig.Slack s && s.token().isPresent())
        .map(NotifierConfig::name)
        .findFirst()
        .orElse("");
  }

  /**
   * Everything a built notifier depends on: two configs whose notifier has the same identity build
   * the same notifier, so a reload keeps the running one ({@link NotificationService}).
   */
  record Identity(
      NotifierConfig notifier,
      java.util.Optional<java.net.URI> grafana,
      java.util.Optional<java.net.URI> ui,
      java.time.Duration interval,
      boolean legacyOwner) {
    /**
     * @param legacyOwner {@link Notifiers#legacyOwner} of {@code config}
     */
    static Identity of(NotifierConfig n, SpecwatchConfig config, String legacyOwner) {
      return new Identity(
          n,
          config.grafanaUrl(),
          config.server().externalUrl(),
          config.evaluation().interval(),
          n.name().equals(legacyOwner));
    }
  }

  /**
   * One notifier of {@code config}.
   *
   * @param threads every Slack message; the notifier sees its own ({@link SlackThreadStore#of})
   * @param legacyOwner {@link #legacyOwner} of {@code config}
   */
  static Notifier create(
      NotifierConfig n,
      SpecwatchConfig config,
      SlackThreadStore threads,
      KeyedStore<SlackGroup> groups,
      ChannelPace pace,
      Clock clock,
      String legacyOwner) {
    if (n instanceof NotifierConfig.Slack slack) {
      return new SlackNotifier(
          slack,
          new SlackMessages.Urls(config.grafanaUrl(), config.server().externalUrl()),
          threads.of(n.name(), n.name().equals(legacyOwner)),
          groups,
          pace,
          clock);
    }
    if (n instanceof NotifierConfig.Log log) {
      return new LogNotifier(log.name());
    }
    if (n instanceof NotifierConfig.Webhook webhook) {
      return new WebhookNotifier(webhook, config.grafanaUrl(), clock);
    }
    if (n instanceof NotifierConfig.Alertmanager am) {
      return new AlertmanagerNotifier(
          am, config.grafanaUrl(), config.evaluation().interval().multipliedBy(4));
    }
    if (n instanceof NotifierConfig.Grafana grafana) {
      return new GrafanaNotifier(grafana);
    }
    if (n instanceof NotifierConfig.PagerDuty pagerDuty) {
      return new PagerDutyNotifier(pagerDuty, config.server().externalUrl(), clock);
    }
    throw new IllegalArgumentException("notifier type not wired: " + n.type());
  }
}
