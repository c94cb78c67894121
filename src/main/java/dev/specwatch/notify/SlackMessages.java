package dev.specwatch.notify;

import static com.slack.api.model.block.Blocks.actions;
import static com.slack.api.model.block.Blocks.context;
import static com.slack.api.model.block.Blocks.header;
import static com.slack.api.model.block.Blocks.section;
import static com.slack.api.model.block.composition.BlockCompositions.markdownText;
import static com.slack.api.model.block.composition.BlockCompositions.plainText;
import static com.slack.api.model.block.element.BlockElements.button;

import com.slack.api.model.block.LayoutBlock;
import com.slack.api.model.block.composition.TextObject;
import com.slack.api.model.block.element.BlockElement;
import dev.specwatch.alerting.AlertEngine;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Durations;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Block Kit and plain-text renderings of transitions (docs/NOTIFICATIONS.md shows the JSON). */
public final class SlackMessages {
  private SlackMessages() {}

  /** Escapes the three characters Slack's mrkdwn treats as control characters. */
  public static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  static String rule(Transition t) {
    return t.position() == null ? t.rule() : t.rule() + "[" + t.position() + "]";
  }

  static String number(Double value) {
    return value == null ? "–" : String.format(Locale.ROOT, "%.3f", value);
  }

  /** Whether the alert is specwatch's own (datasource, state), not a recipe's regression. */
  static boolean self(Transition t) {
    return t.alertId().startsWith(AlertEngine.SELF_PREFIX);
  }

  /** What a self-alert means, in words. */
  static String selfTitle(Transition t) {
    return switch (t.rule()) {
      case "datasource_unavailable" -> "specwatch cannot query its datasource";
      case "state_recovered" -> "specwatch set damaged state files aside";
      default -> "specwatch: " + t.rule().replace('_', ' ');
    };
  }

  /** The plain-text fallback (notifications, screen readers, clients without blocks). */
  public static String text(Transition t, Instant now) {
    if (self(t)) {
      return t.kind() == Transition.Kind.FIRING
          ? String.format(
              Locale.ROOT,
              "[%s] %s: %s",
              t.severity().toUpperCase(Locale.ROOT),
              selfTitle(t),
              t.reason())
          : String.format(
              Locale.ROOT,
              "[RESOLVED] %s (after %s): %s",
              selfTitle(t),
              duration(t.since(), t.at()),
              t.reason());
    }
    return switch (t.kind()) {
      case FIRING ->
          String.format(
              Locale.ROOT,
              "[%s] MTP efficiency regressed: %s %s %s" + " (threshold %s, window %s): %s",
              t.severity().toUpperCase(Locale.ROOT),
              t.recipe(),
              rule(t),
              number(t.value()),
              number(t.threshold()),
              Durations.format(t.window()),
              t.reason());
      case RESOLVED ->
          String.format(
              Locale.ROOT,
              "[RESOLVED] %s %s recovered after %s: %s",
              t.recipe(),
              rule(t),
              duration(t.since(), t.at()),
              t.reason());
    };
  }

  public static List<LayoutBlock> firing(Transition t, Optional<URI> grafana) {
    if (self(t)) {
      return selfLayout(t, ":warning: " + selfTitle(t), "since " + t.since());
    }
    return layout(
        t,
        grafana,
        ":red_circle: MTP efficiency regressed: " + t.recipe(),
        "*"
            + escape(rule(t))
            + "* is *"
            + number(t.value())
            + "*, below "
            + number(t.threshold())
            + " over "
            + Durations.format(t.window())
            + "."
            + detail(t),
        true,
        "since " + t.since());
  }

  /** The reason adds detail for regression and throughput; for thresholds it is the headline. */
  private static String detail(Transition t) {
    return t.reason().startsWith(rule(t) + " ") ? "" : "\n" + escape(t.reason());
  }

  /** Replaces the firing message once the alert resolves: same layout, green, with duration. */
  public static List<LayoutBlock> resolved(Transition t, Optional<URI> grafana) {
    if (self(t)) {
      return selfLayout(
          t,
          ":large_green_circle: Resolved: " + selfTitle(t),
          "fired " + t.since() + " · resolved " + t.at());
    }
    return layout(
        t,
        grafana,
        ":large_green_circle: Recovered: " + t.recipe(),
        "*"
            + escape(rule(t))
            + "* recovered after *"
            + duration(t.since(), t.at())
            + "*.\n"
            + escape(t.reason()),
        false,
        "fired " + t.since() + " · resolved " + t.at());
  }

  /** specwatch's own alerts: no recipe, value or threshold to show, just what is wrong. */
  private static List<LayoutBlock> selfLayout(Transition t, String headline, String footer) {
    return List.of(
        header(h -> h.text(plainText(headline, true))),
        section(s -> s.text(markdownText(escape(t.reason())))),
        context(
            c ->
                c.elements(
                    List.of(
                        markdownText(
                            "specwatch · alert `" + escape(t.alertId()) + "` · " + footer)))));
  }

  /** The one message layout: header, summary, fields, buttons, footer. */
  private static List<LayoutBlock> layout(
      Transition t,
      Optional<URI> grafana,
      String headline,
      String summary,
      boolean firing,
      String footer) {
    List<LayoutBlock> blocks = new ArrayList<>();
    blocks.add(header(h -> h.text(plainText(headline, true))));
    blocks.add(section(s -> s.text(markdownText(summary))));
    blocks.add(section(s -> s.fields(fields(t, firing))));
    actionsFor(t, grafana).ifPresent(blocks::add);
    blocks.add(
        context(
            c ->
                c.elements(
                    List.of(
                        markdownText(
                            "specwatch · alert `" + escape(t.alertId()) + "` · " + footer)))));
    return blocks;
  }

  /** Thread reply text for a resolve or a repeat. */
  public static String reply(Transition t, Intent.Kind kind, Instant now) {
    if (kind == Intent.Kind.REPEAT && self(t)) {
      return ":hourglass: Still firing after "
          + duration(t.at(), now)
          + ": "
          + selfTitle(t)
          + ": "
          + escape(t.reason());
    }
    if (kind == Intent.Kind.REPEAT) {
      return ":hourglass: Still firing after "
          + duration(t.at(), now)
          + ": "
          + escape(rule(t))
          + " "
          + number(t.value())
          + " (threshold "
          + number(t.threshold())
          + ").";
    }
    return ":white_check_mark: Resolved after "
        + duration(t.since(), t.at())
        + ": "
        + escape(t.reason());
  }

  private static List<TextObject> fields(Transition t, boolean firing) {
    List<TextObject> fields = new ArrayList<>();
    fields.add(markdownText("*Recipe*\n" + escape(t.recipe())));
    fields.add(markdownText("*Rule*\n" + escape(rule(t))));
    fields.add(
        markdownText("*Value vs threshold*\n" + number(t.value()) + " / " + number(t.threshold())));
    fields.add(markdownText("*Window*\n" + Durations.format(t.window())));
    fields.add(
        markdownText(
            "*"
                + (firing ? "Since" : "Firing since")
                + "*\n"
                + "<!date^"
                + t.since().getEpochSecond()
                + "^{date_short_pretty} {time}|"
                + t.since()
                + ">"));
    fields.add(markdownText("*Severity*\n" + escape(t.severity())));
    if (!t.positionAcceptance().isEmpty()) {
      StringBuilder positions = new StringBuilder("*Acceptance by position*\n");
      for (int i = 0; i < t.positionAcceptance().size(); i++) {
        positions
            .append(i == 0 ? "" : " · ")
            .append(i)
            .append(": ")
            .append(number(t.positionAcceptance().get(i)));
      }
      fields.add(markdownText(positions.toString()));
    }
    return fields;
  }

  private static Optional<LayoutBlock> actionsFor(Transition t, Optional<URI> grafana) {
    List<BlockElement> buttons = new ArrayList<>();
    Links.dashboard(grafana, t)
        .ifPresent(
            url ->
                buttons.add(
                    button(
                        b -> b.actionId("dashboard").text(plainText("Open dashboard")).url(url))));
    Optional.ofNullable(t.labels().get("runbook_url"))
        .ifPresent(
            url ->
                buttons.add(
                    button(b -> b.actionId("runbook").text(plainText("Runbook")).url(url))));
    if (buttons.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(actions(a -> a.elements(buttons)));
  }

  static String duration(Instant from, Instant to) {
    Duration d = Duration.between(from, to);
    return Durations.format(Duration.ofSeconds(Math.max(0, d.toSeconds())));
  }
}
