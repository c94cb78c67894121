package dev.specwatch.digest;

import static com.slack.api.model.block.Blocks.header;
import static com.slack.api.model.block.Blocks.section;
import static com.slack.api.model.block.composition.BlockCompositions.markdownText;
import static com.slack.api.model.block.composition.BlockCompositions.plainText;

import com.slack.api.model.block.LayoutBlock;
import com.slack.api.model.block.composition.TextObject;
import dev.specwatch.notify.DeliveryResult;
import dev.specwatch.notify.Notifier;
import dev.specwatch.notify.slack.SlackMessages;
import dev.specwatch.notify.slack.SlackNotifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The digest's fleet summary in Slack ({@code digest.slack_channel}), for the daemon and the CLI.
 */
public final class DigestSlack {
  private DigestSlack() {}

  /**
   * Posts the summary to {@code channel} through the first Slack notifier; empty when there is
   * none. Each outcome is passed to {@code report}.
   */
  public static Optional<Consumer<Digest>> poster(
      Collection<Notifier> notifiers, String channel, Consumer<DeliveryResult> report) {
    return notifiers.stream()
        .filter(SlackNotifier.class::isInstance)
        .map(SlackNotifier.class::cast)
        .findFirst()
        .map(
            slack ->
                digest -> report.accept(slack.post(channel, digest.subject(), summary(digest))));
  }

  /** The weekly digest's fleet summary as a Slack message. */
  static List<LayoutBlock> summary(Digest d) {
    List<LayoutBlock> blocks = new ArrayList<>();
    blocks.add(header(h -> h.text(plainText(":bar_chart: " + d.subject(), true))));
    StringBuilder fleet = new StringBuilder();
    d.biggestRegression()
        .ifPresent(
            r ->
                fleet
                    .append("Biggest regression: *")
                    .append(SlackMessages.escape(r.recipe()))
                    .append("* ")
                    .append(signed(r.acceptanceChange()))
                    .append('\n'));
    d.bestPerformer()
        .ifPresent(
            r ->
                fleet
                    .append("Best performer: *")
                    .append(SlackMessages.escape(r.recipe()))
                    .append("*, ")
                    .append(r.notes().speedup().headline())
                    .append(" (measured against ")
                    .append(SlackMessages.escape(r.notes().speedup().baseline()))
                    .append(")"));
    if (fleet.length() > 0) {
      blocks.add(section(s -> s.text(markdownText(fleet.toString()))));
    }
    List<TextObject> fields = new ArrayList<>();
    for (RecipeWeek r : d.recipes()) {
      if (fields.size() == 10) {
        break; // Slack allows ten fields per section
      }
      fields.add(
          markdownText(
              "*"
                  + SlackMessages.escape(r.recipe())
                  + "*"
                  + (r.regression() ? " :warning:" : "")
                  + "\nacceptance "
                  + (r.acceptanceRate() == null
                      ? "–"
                      : String.format(Locale.ROOT, "%.1f %%", r.acceptanceRate() * 100))
                  + " ("
                  + signed(r.acceptanceChange())
                  + ")"
                  + speedupLine(r.notes().speedup())));
    }
    if (!fields.isEmpty()) {
      blocks.add(section(s -> s.fields(fields)));
    }
    return blocks;
  }

  /** The measured speed-up, and the day it stopped paying; empty when not measured. */
  private static String speedupLine(RecipeWeek.Speedup s) {
    if (s == null || s.speedup() == null) {
      return "";
    }
    return "\n"
        + String.format(Locale.ROOT, "%.2f×", s.speedup())
        + " at "
        + (s.runningMin() == s.runningMax()
            ? Integer.toString(s.runningMin())
            : s.runningMin() + "–" + s.runningMax())
        + " running"
        + (s.stoppedPaying() == null ? "" : "; " + s.stoppedPaying());
  }

  private static String signed(Double change) {
    return change == null ? "–" : String.format(Locale.ROOT, "%+.1f %%", change * 100);
  }
}
