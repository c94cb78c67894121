package dev.specwatch.notify;

import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.SpecwatchConfig;
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
    String legacyOwner =
        config.notifiers().stream()
            .filter(n -> n instanceof NotifierConfig.Slack s && s.token().isPresent())
            .map(NotifierConfig::name)
            .findFirst()
            .orElse("");
    for (NotifierConfig n : config.notifiers()) {
      out.put(
          n.name(),
          create(
              n, config, threads.of(n.name(), n.name().equals(legacyOwner)), groups, pace, clock));
    }
    return out;
  }

  /**
   * @param threads the Slack messages of this notifier alone
   */
  static Notifier create(
      NotifierConfig n,
      SpecwatchConfig config,
      SlackThreadStore threads,
      KeyedStore<SlackGroup> groups,
      ChannelPace pace,
      Clock clock) {
    if (n instanceof NotifierConfig.Slack slack) {
      return new SlackNotifier(
          slack,
          new SlackMessages.Urls(config.grafanaUrl(), config.server().externalUrl()),
          threads,
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
