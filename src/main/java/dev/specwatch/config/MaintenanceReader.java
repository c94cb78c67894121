package dev.specwatch.config;

import dev.specwatch.model.Policy;
import dev.specwatch.model.TimeInterval;
import dev.specwatch.model.TimeInterval.Range;
import dev.specwatch.yaml.MapReader;
import dev.specwatch.yaml.YamlNode;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One entry of a policy's {@code maintenance}: a single window ({@code start}, {@code end}) or a
 * recurring one in the fields of Alertmanager's {@code time_intervals} ({@code times}, {@code
 * weekdays}, {@code days_of_month}, {@code months}, {@code years}, {@code location}), with the same
 * value syntax and the same checks (prometheus/alertmanager, {@code timeinterval/timeinterval.go});
 * and the config file's named {@code time_intervals}, which a policy's {@code mute_time_intervals}
 * names, as an Alertmanager route does.
 */
final class MaintenanceReader {
  private static final List<String> RECURRING =
      List.of("times", "weekdays", "days_of_month", "months", "years", "location");

  private static final Pattern CLOCK = Pattern.compile("([01][0-9]|2[0-3]):[0-5][0-9]|24:00");

  private MaintenanceReader() {}

  static Optional<Policy.Maintenance> read(MapReader m) {
    String comment = m.string("comment", "");
    boolean start = m.has("start");
    boolean window = m.has("end") || start;
    // count, not anyMatch: every key is asked for, so none of them is reported unknown
    boolean recurring = RECURRING.stream().filter(m::has).count() > 0;
    if (window && recurring) {
      m.error(
          start ? "start" : "end",
          "give start and end (one window) or times, weekdays, days_of_month, months and years"
              + " (a recurring one), not both; bound a recurring window with years, months or"
              + " days_of_month");
      m.finish();
      return Optional.empty();
    }
    if (!window && !recurring) {
      m.error(
          "start",
          "give start and end (one window, e.g. 2026-12-01T02:00:00Z) or times, weekdays,"
              + " days_of_month, months or years (a recurring one)");
      m.finish();
      return Optional.empty();
    }
    if (!recurring) {
      Optional<Instant> from = Converters.instant(m, "start");
      Optional<Instant> end = Converters.instant(m, "end");
      m.finish();
      if (from.isEmpty() || end.isEmpty()) {
        return Optional.empty();
      }
      if (!end.get().isAfter(from.get())) {
        m.error("end", "must be after start");
        return Optional.empty();
      }
      return Optional.of(new Policy.Maintenance.Window(from.get(), end.get(), comment));
    }
    return finishedInterval(m).map(w -> new Policy.Maintenance.Recurring(w, comment));
  }

  /**
   * The config file's {@code time_intervals}, as Alertmanager's: a list of {@code {name,
   * time_intervals: [interval, ...]}}, which policies name in {@code mute_time_intervals}.
   */
  static Map<String, List<TimeInterval>> named(MapReader config) {
    Map<String, List<TimeInterval>> out = new LinkedHashMap<>();
    Map<String, String> where = new LinkedHashMap<>();
    List<MapReader> entries =
        config.list(
            "time_intervals",
            (node, path) -> MapReader.of(node, path, config.problems(), config.baseDir()));
    for (MapReader n : entries) {
      String name = n.requiredString("name");
      List<TimeInterval> intervals =
          n.list(
              "time_intervals",
              (node, path) ->
                  MapReader.of(node, path, n.problems(), n.baseDir())
                      .flatMap(MaintenanceReader::finishedInterval));
      if (!n.has("time_intervals")) {
        n.error("time_intervals", "is required: a list of intervals");
      }
      n.finish();
      String first = where.putIfAbsent(name, n.locationOf("name").toString());
      if (first != null) {
        n.error("name", "time interval '" + name + "' is already defined at " + first);
      } else if (!name.isEmpty()) {
        out.put(name, intervals);
      }
    }
    return out;
  }

  /**
   * A policy's {@code mute_time_intervals}: each name of the config's {@code time_intervals}
   * becomes recurring maintenance windows, commented with the name.
   */
  static List<Policy.Maintenance> muted(MapReader policy, Map<String, List<TimeInterval>> named) {
    List<List<Policy.Maintenance>> each =
        policy.list(
            "mute_time_intervals",
            (node, path) ->
                scalar(policy, node, path, "a name")
                    .flatMap(name -> muted(policy, node, path, name, named)));
    return each.stream().flatMap(List::stream).toList();
  }

  /** The windows of one named interval, or empty (reported at the name) when there is none. */
  private static Optional<List<Policy.Maintenance>> muted(
      MapReader policy,
      YamlNode node,
      String path,
      String name,
      Map<String, List<TimeInterval>> named) {
    List<TimeInterval> intervals = named.get(name);
    if (intervals == null) {
      policy
          .problems()
          .add(
              node.location(),
              path,
              "no time interval '"
                  + name
                  + "' in the config file's time_intervals"
                  + MapReader.closest(name, named.keySet())
                      .map(h -> " (did you mean '" + h + "'?)")
                      .orElse(
                          named.isEmpty()
                              ? ""
                              : "; defined: " + String.join(", ", named.keySet())));
      return Optional.empty();
    }
    return Optional.of(
        intervals.stream()
            .<Policy.Maintenance>map(i -> new Policy.Maintenance.Recurring(i, name))
            .toList());
  }

  /** An item's text, or empty with "expected {@code what}, got …" at its place. */
  private static Optional<String> scalar(MapReader m, YamlNode node, String path, String what) {
    if (!(node instanceof YamlNode.Scalar s) || s.isNull() || s.invalid()) {
      m.problems().add(node.location(), path, "expected " + what + ", got " + node.kind());
      return Optional.empty();
    }
    return Optional.of(s.text());
  }

  /** {@link #interval} with its mapping finished (every other key reported unknown). */
  private static Optional<TimeInterval> finishedInterval(MapReader m) {
    Optional<TimeInterval> t = interval(m);
    m.finish();
    return t;
  }

  /**
   * One interval's fields (times, weekdays, days_of_month, months, years, location), without {@link
   * MapReader#finish()}: empty when one is wrong (each reported) or none is given.
   */
  private static Optional<TimeInterval> interval(MapReader m) {
    int before = m.problemCount();
    List<Range> times =
        m.list(
            "times",
            (node, path) ->
                MapReader.of(node, path, m.problems(), m.baseDir())
                    .flatMap(MaintenanceReader::time));
    List<Range> weekdays = values(m, "weekdays", MaintenanceReader::weekdays);
    List<Range> days = values(m, "days_of_month", MaintenanceReader::daysOfMonth);
    List<Range> months = values(m, "months", MaintenanceReader::months);
    List<Range> years = values(m, "years", MaintenanceReader::years);
    ZoneId location = ZoneOffset.UTC;
    Optional<String> zone = m.optionalString("location");
    if (zone.isPresent()) {
      try {
        location = location(zone.get());
      } catch (IllegalArgumentException e) {
        m.error("location", e.getMessage());
      }
    }
    if (m.problemCount() > before) {
      return Optional.empty();
    }
    TimeInterval when = new TimeInterval(times, weekdays, days, months, years, location);
    if (when.isEmpty()) {
      m.error(
          "times",
          "a recurring window needs at least one of times, weekdays, days_of_month,"
              + " months or years");
      return Optional.empty();
    }
    return Optional.of(when);
  }

  /** A list of scalar values, each read by {@code parse}; a bad one is reported at its place. */
  private static List<Range> values(MapReader m, String key, Function<String, Range> parse) {
    return m.list(
        key,
        (node, path) ->
            scalar(m, node, path, "a single value")
                .flatMap(
                    text -> {
                      try {
                        return Optional.of(parse.apply(text));
                      } catch (IllegalArgumentException e) {
                        m.problems().add(node.location(), path, e.getMessage());
                        return Optional.empty();
                      }
                    }));
  }

  private static Optional<Range> time(MapReader t) {
    String start = t.requiredString("start_time");
    String end = t.requiredString("end_time");
    t.finish();
    if (start.isEmpty() || end.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(time(start, end));
    } catch (IllegalArgumentException e) {
      t.error(CLOCK.matcher(start).matches() ? "end_time" : "start_time", e.getMessage());
      return Optional.empty();
    }
  }

  /** {@code start_time} and {@code end_time} ("HH:MM", end up to "24:00") as minutes of the day. */
  static Range time(String start, String end) {
    int from = clock(start);
    int to = clock(end);
    if (from >= to) {
      throw new IllegalArgumentException(
          "start_time "
              + start
              + " must be before end_time "
              + end
              + " (a range cannot pass"
              + " midnight: give two, one ending at 24:00 and one starting at 00:00)");
    }
    return new Range(from, to);
  }

  private static int clock(String text) {
    if (!CLOCK.matcher(text).matches()) {
      throw new IllegalArgumentException(
          "expected a time of day like 02:00 (00:00 to 24:00), got '" + text + "'");
    }
    return Integer.parseInt(text.substring(0, 2)) * 60 + Integer.parseInt(text.substring(3));
  }

  /** A weekday or a range of them: "monday", "monday:friday" (not across Saturday to Sunday). */
  static Range weekdays(String text) {
    Range r = range(text, s -> named(s, TimeInterval.WEEKDAYS, 0, "a weekday", false));
    if (r.begin() > r.end()) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' runs backwards (weeks run sunday to saturday: give 'saturday' and"
              + " 'sunday' as two entries)");
    }
    return r;
  }

  /** A day of the month or a range: "1", "1:7", "-1" (the last day), "-7:-1". */
  static Range daysOfMonth(String text) {
    Range r = range(text, s -> number(s, "a day of the month"));
    for (int d : new int[] {r.begin(), r.end()}) {
      if (d == 0 || d < -31 || d > 31) {
        throw new IllegalArgumentException(
            d + " is not a day of the month (1 to 31, or -1 to -31 counting from its last day)");
      }
    }
    if (r.begin() < 0 && r.end() > 0) {
      throw new IllegalArgumentException(
          "'" + text + "': the end must count from the month's end too when the start does");
    }
    // As Alertmanager: a range that is backwards in every month (counting 28 days) is an error.
    int begin = r.begin() < 0 ? 28 + r.begin() : r.begin();
    int end = r.end() < 0 ? 28 + r.end() : r.end();
    if (begin > end) {
      throw new IllegalArgumentException("'" + text + "' ends before it starts");
    }
    return r;
  }

  /** A month or a range, by name or number: "january", "december", "1:3". */
  static Range months(String text) {
    Range r = range(text, s -> named(s, TimeInterval.MONTHS, 1, "a month", true));
    if (r.begin() > r.end()) {
      throw new IllegalArgumentException(
          "'" + text + "' runs backwards (give 'november:december' and 'january' as two entries)");
    }
    return r;
  }

  /** A year or a range: "2027", "2026:2027". */
  static Range years(String text) {
    Range r = range(text, s -> number(s, "a year"));
    if (r.begin() > r.end() || r.begin() < 1) {
      throw new IllegalArgumentException("'" + text + "' is not a year or a range of years");
    }
    return r;
  }

  /** An IANA time zone ("Europe/Berlin", "UTC"). */
  static ZoneId location(String text) {
    if (text.equals("UTC")) {
      return ZoneOffset.UTC;
    }
    try {
      return ZoneId.of(text);
    } catch (java.time.DateTimeException e) {
      throw new IllegalArgumentException(
          "unknown time zone '" + text + "' (an IANA name like Europe/Berlin or America/New_York)");
    }
  }

  private interface Member {
    int of(String text);
  }

  private static Range range(String text, Member member) {
    String lower = text.trim().toLowerCase(Locale.ROOT);
    // A leading '-' is a sign (days of the month), so split on the colon only.
    String[] parts = lower.split(":", -1);
    if (parts.length > 2) {
      throw new IllegalArgumentException(
          "expected a value or a range 'start:end', got '" + text + "'");
    }
    int begin = member.of(parts[0]);
    return new Range(begin, parts.length == 2 ? member.of(parts[1]) : begin);
  }

  private static int number(String text, String what) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not " + what);
    }
  }

  private static int named(
      String text, List<String> names, int first, String what, boolean numbers) {
    int i = names.indexOf(text);
    if (i >= 0) {
      return first + i;
    }
    if (numbers && text.matches("[0-9]{1,2}")) {
      int n = Integer.parseInt(text);
      if (n >= first && n < first + names.size()) {
        return n;
      }
    }
    // Alertmanager takes full names only; a typo or an abbreviation gets the name it meant.
    Optional<String> near =
        MapReader.closest(text, names)
            .or(
                () ->
                    text.length() >= 3
                        ? names.stream().filter(n -> n.startsWith(text)).findFirst()
                        : Optional.empty());
    String hint = near.map(h -> " (did you mean '" + h + "'?)").orElse("");
    throw new IllegalArgumentException("'" + text + "' is not " + what + hint);
  }
}
