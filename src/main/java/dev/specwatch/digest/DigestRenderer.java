package dev.specwatch.digest;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import com.github.mustachejava.MustacheFactory;
import dev.specwatch.advisor.SpeedupByLoad;
import dev.specwatch.model.Durations;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Renders a {@link Digest} as an HTML mail (inline CSS, tables, images by Content-ID), a plain-text
 * alternative and PNG charts, from Mustache templates a user may override ({@code
 * digest.template_dir} with {@code digest.html.mustache} and {@code digest.txt.mustache}).
 */
public final class DigestRenderer {
  /** The rendered mail: subject, bodies, and the images the HTML references as cid:KEY. */
  public record Rendered(String subject, String html, String text, Map<String, byte[]> images) {}

  private final Optional<Path> templateDir;
  private final MustacheFactory html = new DefaultMustacheFactory();

  /** Plain text: no HTML escaping. */
  private final MustacheFactory text =
      new DefaultMustacheFactory() {
        @Override
        public void encode(String value, Writer writer) {
          try {
            writer.write(value);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  public DigestRenderer(Optional<Path> templateDir) {
    this.templateDir = templateDir;
  }

  public Rendered render(Digest digest) {
    Map<String, byte[]> images = new LinkedHashMap<>();
    Map<String, Object> view = view(digest, images);
    return new Rendered(
        digest.subject(),
        template("digest.html.mustache", view),
        template("digest.txt.mustache", view),
        images);
  }

  private String template(String name, Map<String, Object> view) {
    try (Reader reader = reader(name)) {
      Mustache m = (name.endsWith(".html.mustache") ? html : text).compile(reader, name);
      StringWriter out = new StringWriter();
      m.execute(out, view).flush();
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot render " + name + ": " + e.getMessage(), e);
    }
  }

  private Reader reader(String name) throws IOException {
    if (templateDir.isPresent() && Files.isRegularFile(templateDir.get().resolve(name))) {
      return Files.newBufferedReader(templateDir.get().resolve(name), StandardCharsets.UTF_8);
    }
    return new InputStreamReader(
        DigestRenderer.class.getResourceAsStream("/dev/specwatch/digest/" + name),
        StandardCharsets.UTF_8);
  }

  private static Map<String, Object> view(Digest d, Map<String, byte[]> images) {
    DateTimeFormatter day = DateTimeFormatter.ofPattern("EEE d MMM yyyy", Locale.ROOT);
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("subject", d.subject());
    v.put("period", d.period().label());
    v.put("start", day.format(d.period().monday()));
    v.put("end", day.format(d.period().monday().plusDays(6)));
    v.put("zone", d.period().zone().equals(ZoneOffset.UTC) ? "UTC" : d.period().zone().getId());
    v.put("regressionWord", d.regressions() == 1 ? "regression" : "regressions");
    v.put("recipeCount", d.recipes().size());
    v.put("regressionCount", d.regressions());
    v.put("regressionColor", d.regressions() > 0 ? "#bf2600" : "#006644");
    d.biggestRegression()
        .ifPresent(
            r ->
                v.put(
                    "biggestRegression",
                    Map.of("name", r.recipe(), "change", signedPercent(r.acceptanceChange()))));
    d.bestPerformer()
        .ifPresent(
            r ->
                v.put(
                    "bestPerformer",
                    Map.of(
                        "name",
                        r.recipe(),
                        "speedup",
                        r.notes().speedup().headline()
                            + " (measured against "
                            + r.notes().speedup().baseline()
                            + ")")));
    v.put("withoutData", d.withoutData() > 0 ? d.withoutData() : null);
    List<Map<String, Object>> recipes = new ArrayList<>();
    for (int i = 0; i < d.recipes().size(); i++) {
      RecipeWeek r = d.recipes().get(i);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", r.recipe());
      m.put("speedup", speedup(r.notes().speedup()));
      m.put("engine", r.engine());
      m.put("model", r.modelName() == null ? "" : r.modelName());
      m.put("regression", r.regression());
      m.put("noData", r.notes().noData());
      m.put("noDataReason", r.notes().noDataReason());
      m.put("unfinished", r.notes().unfinished());
      m.put("withinWeekDrop", r.notes().withinWeekDrop());
      m.put("kChanges", r.notes().kChanges());
      m.put("acceptance", percent(r.acceptanceRate()));
      m.put("previousAcceptance", percent(r.previousAcceptanceRate()));
      m.put("acceptanceChange", signedPercent(r.acceptanceChange()));
      m.put("acceptanceColor", color(r.acceptanceChange()));
      m.put("meanLength", fixed(r.meanAcceptedLength(), 2));
      m.put("previousMeanLength", fixed(r.previousMeanAcceptedLength(), 2));
      m.put("meanLengthChange", signedPercent(r.meanLengthChange()));
      m.put("meanLengthColor", color(r.meanLengthChange()));
      m.put(
          "hourly",
          percent(r.hourlyP10())
              + " / "
              + percent(r.hourlyMedian())
              + " / "
              + percent(r.hourlyP90()));
      List<String> positions = new ArrayList<>();
      for (int p = 0; p < r.positionAcceptance().size(); p++) {
        positions.add(p + ": " + percent(r.positionAcceptance().get(p)));
      }
      m.put(
          "positions",
          positions.isEmpty() || r.positionAcceptance().stream().allMatch(x -> x == null)
              ? "–"
              : String.join(" · ", positions));
      m.put("draftTokens", count(r.draftTokens()));
      m.put("acceptedTokens", count(r.acceptedTokens()));
      m.put("wastedTokens", count(r.wastedTokens()));
      m.put("generationTokens", count(r.generationTokens()));
      m.put("acceptedShare", percent(r.acceptedShare()));
      m.put(
          "idleShare",
          r.notes().noData()
              ? "– (no data, which is not idleness)"
              : r.idleShare() == null
                  ? "– (not observed for 5 minutes yet)"
                  : percent(r.idleShare()) + " of the " + observed(r));
      m.put(
          "alerts",
          r.alertsFired() == 0
              ? "none fired"
              : r.alertsFired()
                  + " fired, firing "
                  + human(r.firingTotal())
                  + " in total, longest "
                  + human(r.firingLongest()));
      if (r.sloCompliance() != null) {
        m.put(
            "slo",
            percent(r.sloCompliance())
                + " compliance, "
                + percent(r.sloBudgetRemaining())
                + " of the error budget left");
      }
      if (r.recommendedK() != null) {
        m.put(
            "advice",
            "num_speculative_tokens="
                + r.recommendedK()
                + (Math.abs(r.recommendedGain()) < 0.005
                    ? " (the current setting)"
                    : " (" + signedPercent(r.recommendedGain()) + " estimated speed-up)")
                + "; from "
                + r.adviceBasis());
      } else if (r.adviceBasis() != null) {
        m.put("advice", "no recommendation: " + r.adviceBasis());
      }
      if (r.dashboardUrl() != null) {
        m.put("dashboard", r.dashboardUrl());
      }
      List<Map<String, String>> daily = new ArrayList<>();
      for (RecipeWeek.Day dd : r.daily()) {
        daily.add(
            Map.of(
                "day",
                dd.date().getDayOfWeek().toString().substring(0, 3)
                    + (dd.partial() ? " (so far)" : ""),
                "acceptance",
                percent(dd.acceptanceRate()),
                "meanLength",
                fixed(dd.meanAcceptedLength(), 2)));
      }
      m.put("daily", daily);
      if (!r.notes().noData()) { // no chart of nothing: the box above says it loudly
        String dailyCid = "daily-" + i + "@specwatch";
        images.put(dailyCid, DigestCharts.daily(r));
        m.put("dailyCid", dailyCid);
      }
      if (r.notes().speedup() != null && r.notes().speedup().speedup() != null) {
        String speedupCid = "speedup-" + i + "@specwatch";
        images.put(speedupCid, DigestCharts.speedup(r));
        m.put("speedupCid", speedupCid);
      }
      if (r.positionAcceptance().stream().anyMatch(x -> x != null)) {
        String positionsCid = "positions-" + i + "@specwatch";
        images.put(positionsCid, DigestCharts.positions(r));
        m.put("positionsCid", positionsCid);
      }
      recipes.add(m);
    }
    v.put("recipes", recipes);
    return v;
  }

  static String percent(Double v) {
    return v == null ? "–" : String.format(Locale.ROOT, "%.1f %%", v * 100);
  }

  static String signedPercent(Double v) {
    if (v == null) {
      return "–";
    }
    double pct = Math.round(v * 1000) / 10.0;
    return pct == 0 ? "±0.0 %" : String.format(Locale.ROOT, "%+.1f %%", pct);
  }

  static String fixed(Double v, int decimals) {
    return v == null ? "–" : String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  static String count(Double v) {
    if (v == null) {
      return "–";
    }
    double a = Math.abs(v);
    if (a >= 1e9) {
      return String.format(Locale.ROOT, "%.2fG", v / 1e9);
    }
    if (a >= 1e6) {
      return String.format(Locale.ROOT, "%.2fM", v / 1e6);
    }
    if (a >= 1e3) {
      return String.format(Locale.ROOT, "%.1fk", v / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f", v);
  }

  private static String color(Double change) {
    if (change == null) {
      return "#6b778c";
    }
    return change < -Digest.REGRESSION_DROP ? "#bf2600" : change > 0 ? "#006644" : "#1d2330";
  }

  /**
   * A firing duration for people: whole seconds under an hour ({@code 59s}, {@code 1m54s}), whole
   * minutes above ({@code 2h5m}); never rounded down to {@code 0s} when it lasted a second or more.
   */
  static String human(Duration d) {
    if (d.isNegative()) {
      return "0s";
    }
    return d.compareTo(Duration.ofHours(1)) < 0
        ? Durations.format(Duration.ofSeconds(d.toSeconds()))
        : Durations.format(Duration.ofMinutes(d.toMinutes()));
  }

  /** What the idle share is a share of: the week, or the part of it the recipe was observed. */
  private static String observed(RecipeWeek r) {
    Duration o = r.notes().observed();
    String week = r.notes().unfinished() ? "week so far" : "week";
    Duration whole = Duration.ofDays(7);
    if (o == null || (!r.notes().unfinished() && o.compareTo(whole.minusHours(1)) >= 0)) {
      return week;
    }
    return human(o) + " it was observed (of the " + week + ")";
  }

  /** What speculation bought that week, measured, in one line; or why it was not measured. */
  static String speedup(RecipeWeek.Speedup s) {
    if (s == null) {
      return "not measured";
    }
    if (s.speedup() == null) {
      return s.note();
    }
    return SpeedupByLoad.mostRunLine(s.speedup(), s.low(), s.high(), s.runningMin(), s.runningMax())
        + ", against "
        + s.baseline()
        + "; "
        + (s.paysUpToRunning() == null
            ? "paid at no measured load"
            : "paid up to " + s.paysUpToRunning() + " running requests")
        + dev.specwatch.advisor.SpeedupByLoad.breaksEvenClause(
            s.byLoad().stream()
                .filter(b -> dev.specwatch.advisor.SpeedupByLoad.BREAKS_EVEN.equals(b.verdict()))
                .map(RecipeWeek.Bar::load)
                .toList())
        + (s.stoppedPaying() == null ? "" : "; " + s.stoppedPaying())
        + (s.note() == null ? "" : "; the speed-up " + s.note());
  }
}
