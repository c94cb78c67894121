package dev.specwatch.notify.slack;

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
import dev.specwatch.alerting.AlertKey;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Durations;
import dev.specwatch.model.RuleName;
import dev.specwatch.notify.Intent;
import dev.specwatch.notify.Links;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Block Kit and plain-text renderings of transitions, written to be read at a glance: one headline
 * (the recipe, what dropped, by how much against its threshold), the recipe's signals as fields,
 * links to act on, nothing said twice. docs/NOTIFICATIONS.md shows the JSON (golden-tested).
 */
public final class SlackMessages {
  /** Where links point: Grafana's dashboard and specwatch's own web UI (server.external_url). */
  public record Urls(Optional<URI> grafana, Optional<URI> ui) {
    public static Urls none() {
      return new Urls(Optional.empty(), Optional.empty());
    }
  }

  /** The rule name of {@code specwatch notify test}'s message. */
  public static final String TEST_RULE = RuleName.TEST.id();

  private static final int HEADER_MAX = 150;

  private SlackMessages() {}

  /** Escapes the three characters Slack's mrkdwn treats as control characters. */
  public static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  public static String rule(Transition t) {
    return t.position() == null ? t.rule() : t.rule() + "[" + t.position() + "]";
  }

  /** The rule in words: "acceptance rate", "acceptance at position 0". */
  static String label(Transition t) {
    String words = RuleName.wordsOf(t.rule());
    return t.position() == null ? words : words + " " + t.position();
  }

  static String number(Double value) {
    return value == null ? "–" : String.format(Locale.ROOT, "%.3f", value);
  }

  static boolean self(Transition t) {
    return t.key().specwatch();
  }

  static boolean test(Transition t) {
    return t.key().equals(AlertKey.specwatch(TEST_RULE));
  }

  static String selfTitle(Transition t) {
    return RuleName.of(t.rule())
        .map(RuleName::words)
        .orElseGet(() -> "specwatch: " + RuleName.wordsOf(t.rule()));
  }

  /**
   * One line: the recipe, what dropped and by how much against the threshold ("qwen: acceptance
   * rate 0.410, 9 % below its 0.450 threshold"); rules that compare with a baseline say so in their
   * reason, which is used as it is.
   */
  public static String headline(Transition t) {
    if (test(t)) {
      return selfTitle(t) + ": not an alert, no action needed";
    }
    if (self(t)) {
      return selfTitle(t) + ": " + t.reason();
    }
    if (thresholdLike(t)) {
      // The rule says which side of its line is wrong; a sequential floor's estimate may sit on
      // either side of the line.
      boolean ceiling = RuleName.of(t.rule()).map(RuleName::ceiling).orElse(false);
      double past =
          (ceiling ? t.value() - t.threshold() : t.threshold() - t.value()) / t.threshold() * 100;
      return String.format(
          Locale.ROOT,
          "%s: %s %s, %.0f %% %s its %s %s",
          t.recipe(),
          label(t),
          number(t.value()),
          past,
          ceiling ? "above" : "below",
          number(t.threshold()),
          ceiling ? "ceiling" : "threshold");
    }
    return t.recipe() + ": " + t.reason();
  }

  /**
   * A static threshold's firing reason ("acceptance_rate 0.410 below 0.450") says nothing more than
   * the value and the line: the headline says it in words.
   */
  static boolean thresholdLike(Transition t) {
    return t.kind() == Transition.Kind.FIRING
        && t.value() != null
        && t.threshold() > 0
        && RuleName.of(t.rule()).map(RuleName::staticThreshold).orElse(false);
  }

  /**
   * The fallback {@code text} of a Slack message: {@link #text}, escaped. Slack reads {@code text}
   * as mrkdwn too, so a recipe or detail holding {@code <!channel>} would ping a whole channel from
   * the notification; the blocks were escaped, the fallback was not.
   */
  public static String slackText(Transition t, Instant now) {
    return escape(text(t, now));
  }

  /** The plain-text fallback (notifications, screen readers, clients without blocks). */
  public static String text(Transition t, Instant now) {
    if (test(t)) {
      return "[TEST] " + headline(t);
    }
    return switch (t.kind()) {
      case FIRING -> "[" + t.severity().key().toUpperCase(Locale.ROOT) + "] " + headline(t);
      case RESOLVED ->
          self(t)
              ? "[RESOLVED] " + selfTitle(t) + ", after " + duration(t.since(), t.at())
              : "[RESOLVED] "
                  + t.recipe()
                  + ": "
                  + label(t)
                  + " recovered after "
                  + duration(t.since(), t.at())
                  + " ("
                  + t.detail()
                  + ")";
    };
  }

  public static List<LayoutBlock> firing(Transition t, Urls urls) {
    if (test(t)) {
      return layout(t, urls, ":test_tube: " + headline(t), null, true);
    }
    if (self(t)) {
      return layout(t, urls, ":warning: " + selfTitle(t), t.reason(), true);
    }
    if (thresholdLike(t)) {
      return layout(t, urls, ":red_circle: " + headline(t), null, true);
    }
    return layout(
        t, urls, ":red_circle: " + t.recipe() + ": " + label(t) + " dropped", t.reason(), true);
  }

  /** Replaces the firing message once the alert resolves: same layout, green, with duration. */
  public static List<LayoutBlock> resolved(Transition t, Urls urls) {
    String what = self(t) ? selfTitle(t) : t.recipe() + ": " + label(t);
    return layout(
        t,
        urls,
        ":large_green_circle: " + what + " recovered after " + duration(t.since(), t.at()),
        t.detail(),
        false);
  }

  /**
   * @param body the reason when the header does not already say it; null: none
   */
  private static List<LayoutBlock> layout(
      Transition t, Urls urls, String headline, String body, boolean firing) {
    List<LayoutBlock> blocks = new ArrayList<>();
    boolean cut = headline.length() > HEADER_MAX;
    String head = cut ? headline.substring(0, HEADER_MAX - 1) + "…" : headline;
    blocks.add(header(h -> h.text(plainText(head, true))));
    String text = body != null ? body : cut ? headline : null;
    if (text != null) {
      blocks.add(section(s -> s.text(markdownText(escape(text)))));
    }
    if (!self(t)) {
      blocks.add(section(s -> s.fields(fields(t))));
    }
    actionsFor(t, urls, firing).ifPresent(blocks::add);
    String since = date(t.since());
    blocks.add(
        context(
            c ->
                c.elements(
                    List.of(
                        markdownText(
                            (firing ? "Since " : "Fired ")
                                + since
                                + " · "
                                + escape(t.severity().key())
                                + (self(t) ? "" : " · rule `" + escape(rule(t)) + "`")
                                + " · window "
                                + Durations.format(t.window())
                                + " · alert `"
                                + escape(t.alertId())
                                + "`")))));
    return blocks;
  }

  /** Thread reply for a resolve or a repeat, in the same voice as the message. */
  public static String reply(Transition t, Intent.Kind kind, Instant now) {
    if (kind == Intent.Kind.REPEAT) {
      return ":hourglass: Still firing after " + duration(t.at(), now) + ": " + escape(headline(t));
    }
    return ":white_check_mark: Recovered after "
        + duration(t.since(), t.at())
        + ": "
        + escape(t.detail());
  }

  private static List<TextObject> fields(Transition t) {
    List<TextObject> fields = new ArrayList<>();
    fields.add(field("Acceptance rate", t.signals().get("acceptance_rate"), 3));
    fields.add(field("Mean accepted length", t.signals().get("mean_accepted_length"), 2));
    fields.add(field("Draft tokens/s", t.signals().get("draft_tokens_per_second"), 1));
    if (!t.positionAcceptance().isEmpty()) {
      StringBuilder positions = new StringBuilder("*Acceptance by position*\n");
      for (int i = 0; i < t.positionAcceptance().size(); i++) {
        positions.append(i == 0 ? "" : " · ").append(number(t.positionAcceptance().get(i)));
      }
      fields.add(markdownText(positions.toString()));
    }
    return fields;
  }

  private static TextObject field(String name, Double value, int decimals) {
    return markdownText(
        "*"
            + name
            + "*\n"
            + (value == null ? "–" : String.format(Locale.ROOT, "%." + decimals + "f", value)));
  }

  private static Optional<LayoutBlock> actionsFor(Transition t, Urls urls, boolean firing) {
    List<BlockElement> buttons = new ArrayList<>();
    if (!self(t)) {
      Links.dashboard(urls.grafana(), t)
          .ifPresent(
              url ->
                  buttons.add(
                      button(b -> b.actionId("dashboard").text(plainText("Dashboard")).url(url))));
      urls.ui()
          .ifPresent(
              ui -> {
                String base = ui.toString().replaceAll("/+$", "");
                String recipe = URLEncoder.encode(t.recipe(), StandardCharsets.UTF_8);
                buttons.add(
                    button(
                        b ->
                            b.actionId("recipe")
                                .text(plainText("Recipe in specwatch"))
                                .url(base + "/recipes/" + recipe.replace("+", "%20"))));
                if (firing) {
                  buttons.add(
                      button(
                          b ->
                              b.actionId("silence")
                                  .text(plainText("Silence 2h"))
                                  .url(
                                      base
                                          + "/silences?recipe="
                                          + recipe
                                          + "&rule="
                                          + URLEncoder.encode(t.rule(), StandardCharsets.UTF_8)
                                          + "&duration=2h")));
                }
              });
    }
    t.runbookUrl()
        .ifPresent(
            url ->
                buttons.add(
                    button(b -> b.actionId("runbook").text(plainText("Runbook")).url(url))));
    if (buttons.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(actions(a -> a.elements(buttons)));
  }

  /** A time each reader sees in their own time zone (Slack's date token), UTC as the fallback. */
  static String date(Instant t) {
    return "<!date^" + t.getEpochSecond() + "^{date_short_pretty} {time}|" + t + ">";
  }

  static String duration(Instant from, Instant to) {
    Duration d = Duration.between(from, to);
    return Durations.format(Duration.ofSeconds(Math.max(0, d.toSeconds())));
  }
}
