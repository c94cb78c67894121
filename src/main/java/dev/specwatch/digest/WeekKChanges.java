package dev.specwatch.digest;

import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.QueryResult;
import dev.specwatch.signals.ActiveK;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.signals.QueryScope;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The digest's line on the k the servers ran: when it changed in the week. */
final class WeekKChanges {
  private static final Duration STEP = Duration.ofMinutes(5);

  private WeekKChanges() {}

  /**
   * The week's changes of the k the servers report exactly (SGLang's active gauge, vLLM's
   * registered positions), five minutes a step, in words ("k 3 → 5 on Tue 14:05"); null when k did
   * not change or the engine does not say it.
   */
  static String of(
      PrometheusApi api,
      EngineProfile profile,
      QueryScope slice,
      Instant start,
      Instant end,
      ZoneId zone)
      throws PrometheusException {
    Optional<ActiveK> k = profile.activeK().filter(ActiveK::exact);
    if (k.isEmpty()
        || start.plus(STEP).isAfter(end)
        || !(api.queryRange(k.get().rangeQuery(slice), start.plus(STEP), end, STEP)
            instanceof QueryResult.Matrix m)
        || m.series().isEmpty()) {
      return null;
    }
    List<String> out = new ArrayList<>();
    DateTimeFormatter at = DateTimeFormatter.ofPattern("EEE HH:mm", Locale.ROOT).withZone(zone);
    for (ActiveK.Change c : k.get().changes(m.series().get(0))) {
      out.add(c.text() + " on " + at.format(c.at()));
    }
    return out.isEmpty() ? null : String.join("; ", out);
  }
}
