package dev.specwatch.notify.slack;

import static com.slack.api.model.block.Blocks.actions;
import static com.slack.api.model.block.Blocks.context;
import static com.slack.api.model.block.Blocks.header;
import static com.slack.api.model.block.Blocks.section;
import static com.slack.api.model.block.composition.BlockCompositions.markdownText;
import static com.slack.api.model.block.composition.BlockCompositions.plainText;
import static com.slack.api.model.block.element.BlockElements.button;

import com.slack.api.model.block.LayoutBlock;
import dev.specwatch.model.Durations;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Severity;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The group message of a storm (docs/NOTIFICATIONS.md shows it, golden-tested): how many recipes
 * breach, whether it looks like one cause (one rule, every recipe, within minutes), one line per
 * member (red while firing, green and struck through once recovered), and where the detail is.
 */
final class SlackGroupMessages {
  /** Lines per section block (Slack's limit is 3,000 characters a block). */
  private static final int LINES_PER_BLOCK = 10;

  private SlackGroupMessages() {}

  /**
   * @param urls where the buttons point: the web UI's alerts and fleet pages (server.external_url)
   */
  static List<LayoutBlock> blocks(
      SlackGroup g, NotifierConfig.Slack.Grouping grouping, SlackMessages.Urls urls) {
    List<LayoutBlock> blocks = new ArrayList<>();
    String head = headline(g);
    blocks.add(header(h -> h.text(plainText(head, true))));
    cause(g).ifPresent(c -> blocks.add(section(s -> s.text(markdownText(c)))));
    List<String> lines = new ArrayList<>();
    int n = 0;
    // Critical first, then in the order they fired: what to read first on a phone.
    List<SlackGroup.Member> ordered = new ArrayList<>(g.members().values());
    ordered.sort(
        java.util.Comparator.comparing(SlackGroup.Member::severity, Severity.LOUDEST_FIRST));
    for (SlackGroup.Member m : ordered) {
      if (n++ == SlackGroups.LISTED) {
        lines.add(
            "_… and "
                + (g.members().size() - SlackGroups.LISTED)
                + " more: each has its detail in the thread_");
        break;
      }
      lines.add(line(m));
    }
    for (int i = 0; i < lines.size(); i += LINES_PER_BLOCK) {
      String text =
          String.join("\n", lines.subList(i, Math.min(lines.size(), i + LINES_PER_BLOCK)));
      blocks.add(section(s -> s.text(markdownText(text))));
    }
    urls.ui()
        .ifPresent(
            ui -> {
              String base = ui.toString().replaceAll("/+$", "");
              blocks.add(
                  actions(
                      a ->
                          a.elements(
                              List.of(
                                  button(
                                      b ->
                                          b.actionId("alerts")
                                              .text(plainText("Alerts in specwatch"))
                                              .url(base + "/alerts")),
                                  button(
                                      b ->
                                          b.actionId("fleet")
                                              .text(plainText("Fleet"))
                                              .url(base + "/"))))));
            });
    String first = SlackMessages.date(g.openedAt());
    blocks.add(
        context(
            c ->
                c.elements(
                    List.of(
                        markdownText(
                            "First fired "
                                + first
                                + " · "
                                + severities(g.members().values())
                                + " · grouped: alerts of this channel within "
                                + Durations.format(grouping.groupWait())
                                + " of the first · each recipe's signals and buttons are in the"
                                + " thread")))));
    return blocks;
  }

  static String headline(SlackGroup g) {
    long firing = g.members().values().stream().filter(SlackGroup.Member::firing).count();
    int all = g.members().size();
    if (firing == 0) {
      return ":large_green_circle: All " + all + " recipes recovered";
    }
    if (firing == all) {
      return ":red_circle: " + all + " recipes breach their thresholds";
    }
    return ":red_circle: " + firing + " of " + all + " recipes still breach their thresholds";
  }

  /**
   * "One cause likely" when every member breached the same rule within ten minutes of the first;
   * otherwise which rules, how many each.
   */
  static java.util.Optional<String> cause(SlackGroup g) {
    Map<String, Long> rules =
        g.members().values().stream()
            .collect(
                Collectors.groupingBy(
                    SlackGroup.Member::rule, LinkedHashMap::new, Collectors.counting()));
    Instant first =
        g.members().values().stream().map(SlackGroup.Member::firedAt).min(Instant::compareTo).get();
    Instant last =
        g.members().values().stream().map(SlackGroup.Member::firedAt).max(Instant::compareTo).get();
    Duration spread = Duration.between(first, last);
    if (rules.size() == 1 && spread.compareTo(Duration.ofMinutes(10)) <= 0) {
      return java.util.Optional.of(
          "*One cause likely:* all "
              + g.members().size()
              + " recipes breached _"
              + SlackMessages.escape(rules.keySet().iterator().next())
              + "_ within "
              + Durations.format(Duration.ofSeconds(Math.max(1, spread.toSeconds())))
              + " of each other (a shared upgrade, a traffic change, the datasource?)");
    }
    return java.util.Optional.of(
        "*Rules:* "
            + rules.entrySet().stream()
                .map(e -> SlackMessages.escape(e.getKey()) + " ×" + e.getValue())
                .collect(Collectors.joining(", ")));
  }

  private static String line(SlackGroup.Member m) {
    if (m.firing()) {
      return ":red_circle: " + SlackMessages.escape(m.headline());
    }
    return ":large_green_circle: ~"
        + SlackMessages.escape(m.headline())
        + "~ recovered after "
        + m.recovered();
  }

  private static String severities(Collection<SlackGroup.Member> members) {
    Map<String, Long> by =
        members.stream()
            .collect(
                Collectors.groupingBy(
                    m -> m.severity().key(), java.util.TreeMap::new, Collectors.counting()));
    return by.entrySet().stream()
        .map(e -> e.getValue() + " " + SlackMessages.escape(e.getKey()))
        .collect(Collectors.joining(", "));
  }

  /** The plain-text fallback: the headline, the worst severity, the first recipes named. */
  static String text(SlackGroup g) {
    boolean critical =
        g.members().values().stream()
            .anyMatch(m -> m.firing() && m.severity() == Severity.CRITICAL);
    long firing = g.members().values().stream().filter(SlackGroup.Member::firing).count();
    String recipes =
        g.members().values().stream()
                .map(SlackGroup.Member::recipe)
                .limit(5)
                .collect(Collectors.joining(", "))
            + (g.members().size() > 5 ? ", …" : "");
    String tag =
        firing == 0
            ? "[RESOLVED]"
            : critical ? "[CRITICAL]" : "[" + worst(g).toUpperCase(Locale.ROOT) + "]";
    return tag + " " + headline(g).replaceFirst("^:[a-z_]+: ", "") + ": " + recipes;
  }

  private static String worst(SlackGroup g) {
    return g.members().values().stream()
        .filter(SlackGroup.Member::firing)
        .map(m -> m.severity().key())
        .findFirst()
        .orElse(Severity.WARNING.key());
  }

  /** The thread reply for a batch of recoveries. */
  static String recovered(SlackGroup g) {
    List<String> names = new ArrayList<>();
    for (String id : g.unreplied()) {
      SlackGroup.Member m = g.members().get(id);
      names.add(SlackMessages.escape(m.recipe()) + " after " + m.recovered());
    }
    long firing = g.members().values().stream().filter(SlackGroup.Member::firing).count();
    String text =
        ":white_check_mark: Recovered: "
            + String.join(", ", names)
            + (firing == 0 ? ". All recovered." : ". " + firing + " still firing.");
    return text.length() > 3000 ? text.substring(0, 2999) + "…" : text;
  }
}
