package dev.specwatch.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Policy;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A policy's {@code maintenance}: one window, or a recurring one as Alertmanager's. */
class MaintenanceReaderTest {
  @TempDir Path dir;

  private Path config(String policy) throws IOException {
    return config(policy, "");
  }

  private Path config(String policy, String more) throws IOException {
    Files.createDirectories(dir.resolve("alerts"));
    Files.writeString(dir.resolve("alerts/q.yaml"), policy, StandardCharsets.UTF_8);
    Path config = dir.resolve("specwatch.yaml");
    Files.writeString(
        config,
        "prometheus: {url: http://127.0.0.1:9090}\npolicies: alerts\n" + more,
        StandardCharsets.UTF_8);
    return config;
  }

  private static final String HEAD =
      """
      recipe: q
      match: {model_name: q}
      num_speculative_tokens: 3
      thresholds: {acceptance_rate: {below: 0.45}}
      """;

  @Test
  void aRecurringWindowIsReadAsAlertmanagersTimeIntervals() throws IOException {
    // Unquoted times too: the parser keeps "01:00" as written (YAML 1.1 would read sexagesimal 60).
    SpecwatchConfig loaded =
        new ConfigLoader(Map.<String, String>of()::get)
            .load(
                config(
                    HEAD
                        + """
                        maintenance:
                          - {start: 2026-12-01T02:00:00Z, end: 2026-12-01T04:00:00Z, comment: upgrade}
                          - comment: nightly evaluation suite
                            times: [{start_time: 01:00, end_time: "03:30"}]
                            weekdays: ['Monday:friday']
                            location: Europe/Berlin
                          - {days_of_month: ['-1'], months: ['december'], comment: year-end}
                        """));
    List<Policy.Maintenance> m = loaded.policies().get(0).maintenance();
    assertThat(m).hasSize(3);
    assertThat(m.get(0)).isInstanceOf(Policy.Maintenance.Window.class);
    assertThat(m.get(0).covers(Instant.parse("2026-12-01T03:59:59Z"))).isTrue();
    assertThat(m.get(0).covers(Instant.parse("2026-12-01T04:00:00Z"))).isFalse();
    Policy.Maintenance nightly = m.get(1);
    assertThat(nightly.comment()).isEqualTo("nightly evaluation suite");
    // Monday 2026-12-07, 01:00 in Berlin is 00:00 UTC (CET, +01:00).
    assertThat(nightly.covers(Instant.parse("2026-12-07T00:00:00Z"))).isTrue();
    assertThat(nightly.covers(Instant.parse("2026-12-06T23:59:59Z"))).isFalse();
    assertThat(nightly.covers(Instant.parse("2026-12-07T02:29:59Z"))).isTrue();
    assertThat(nightly.covers(Instant.parse("2026-12-07T02:30:00Z"))).isFalse();
    // Saturday 2026-12-12 at the same hour: not a weekday of the window.
    assertThat(nightly.covers(Instant.parse("2026-12-12T00:30:00Z"))).isFalse();
    assertThat(((Policy.Maintenance.Recurring) nightly).when().describe())
        .isEqualTo("01:00-03:30 monday-friday (Europe/Berlin)");
    assertThat(m.get(2).covers(Instant.parse("2026-12-31T12:00:00Z"))).isTrue();
    assertThat(m.get(2).covers(Instant.parse("2026-12-30T12:00:00Z"))).isFalse();
    assertThat(m.get(2).covers(Instant.parse("2027-01-31T12:00:00Z"))).isFalse();
    // validate shows each window as it was read.
    dev.specwatch.cli.CliRunner.Result validate =
        dev.specwatch.cli.CliRunner.run(
            "validate", "--config", dir.resolve("specwatch.yaml").toString());
    assertThat(validate.exit()).isZero();
    assertThat(validate.out())
        .contains(
            "    maintenance: once, 2026-12-01T02:00:00Z to 2026-12-01T04:00:00Z (upgrade)\n",
            "    maintenance: 01:00-03:30 monday-friday (Europe/Berlin) (nightly evaluation"
                + " suite)\n",
            "    maintenance: last day of the month in december (UTC) (year-end)\n");
  }

  @Test
  void everyMistakeIsReportedAtItsPlaceWithItsKeyPath() throws IOException {
    Path config =
        config(
            HEAD
                + """
                maintenance:
                  - {start: 2026-12-01T02:00:00Z, end: 2026-12-01T01:00:00Z}
                  - {start: 2026-12-01T02:00:00Z, end: 2026-12-01T04:00:00Z, weekdays: [monday]}
                  - times: [{start_time: "23:00", end_time: "01:00"}, {start_time: "7:00", end_time: "08:00"}]
                    weekdays: [fridy, 'saturday:sunday']
                    days_of_month: ['0', '-3:5', '10:2']
                    months: ['dec:jan', 13]
                    years: [twenty]
                    location: Europe/Berln
                  - {comment: nothing to match}
                  - {times: [{start_time: "01:00"}], wekdays: [monday]}
                """);
    String q = dir.resolve("alerts/q.yaml").toString();
    assertThat(problems(config))
        .containsExactly(
            q + ":6:40: maintenance[0].end: must be after start",
            q
                + ":7:13: maintenance[1].start: give start and end (one window) or times, weekdays,"
                + " days_of_month, months and years (a recurring one), not both; bound a recurring"
                + " window with years, months or days_of_month",
            q
                + ":8:45: maintenance[2].times[0].end_time: start_time 23:00 must be before end_time"
                + " 01:00 (a range cannot pass midnight: give two, one ending at 24:00 and one"
                + " starting at 00:00)",
            q
                + ":8:68: maintenance[2].times[1].start_time: expected a time of day like 02:00"
                + " (00:00 to 24:00), got '7:00'",
            q
                + ":9:16: maintenance[2].weekdays[0]: 'fridy' is not a weekday (did you mean"
                + " 'friday'?)",
            q
                + ":9:23: maintenance[2].weekdays[1]: 'saturday:sunday' runs backwards (weeks run"
                + " sunday to saturday: give 'saturday' and 'sunday' as two entries)",
            q
                + ":10:21: maintenance[2].days_of_month[0]: 0 is not a day of the month (1 to 31, or"
                + " -1 to -31 counting from its last day)",
            q
                + ":10:26: maintenance[2].days_of_month[1]: '-3:5': the end must count from the"
                + " month's end too when the start does",
            q + ":10:34: maintenance[2].days_of_month[2]: '10:2' ends before it starts",
            q
                + ":11:14: maintenance[2].months[0]: 'dec' is not a month (did you mean"
                + " 'december'?)",
            q + ":11:25: maintenance[2].months[1]: '13' is not a month",
            q + ":12:13: maintenance[2].years[0]: 'twenty' is not a year",
            q
                + ":13:15: maintenance[2].location: unknown time zone 'Europe/Berln' (an IANA name"
                + " like Europe/Berlin or America/New_York)",
            q
                + ":14:5: maintenance[3].start: give start and end (one window, e.g."
                + " 2026-12-01T02:00:00Z) or times, weekdays, days_of_month, months or years (a"
                + " recurring one)",
            q + ":15:14: maintenance[4].times[0].end_time: is required",
            q + ":15:38: maintenance[4].wekdays: unknown key (did you mean 'weekdays'?)");
  }

  /** Alertmanager's own blocks, pasted into the config file and named by the policies. */
  private static final String NAMED =
      """
      time_intervals:
        - name: nightly
          time_intervals:
            - times: [{start_time: "01:00", end_time: "03:30"}]
              weekdays: ["monday:friday"]
              location: Europe/Berlin
            - weekdays: [saturday, sunday]
        - name: year-end
          time_intervals:
            - {days_of_month: ["-1"], months: [december]}
      """;

  @Test
  void policiesMuteTheConfigsNamedTimeIntervalsAsAlertmanagersRoutesDo() throws IOException {
    SpecwatchConfig loaded =
        new ConfigLoader(Map.<String, String>of()::get)
            .load(config(HEAD + "mute_time_intervals: [nightly]\n", NAMED));
    List<Policy.Maintenance> m = loaded.policies().get(0).maintenance();
    assertThat(m).extracting(Policy.Maintenance::comment).containsExactly("nightly", "nightly");
    assertThat(m)
        .extracting(Policy.Maintenance::describe)
        .containsExactly("01:00-03:30 monday-friday (Europe/Berlin)", "saturday sunday (UTC)");
    // Monday 01:30 Berlin; Saturday noon; not Tuesday noon.
    assertThat(m.stream().anyMatch(x -> x.covers(Instant.parse("2026-12-07T00:30:00Z")))).isTrue();
    assertThat(m.stream().anyMatch(x -> x.covers(Instant.parse("2026-12-12T12:00:00Z")))).isTrue();
    assertThat(m.stream().anyMatch(x -> x.covers(Instant.parse("2026-12-08T12:00:00Z")))).isFalse();
  }

  @Test
  void aNamedIntervalThatIsNotThereOrIsWrongIsReportedWhereItIsWritten() throws IOException {
    Path config =
        config(
            HEAD + "mute_time_intervals: [nigthly, weekends]\n",
            NAMED
                + """
                  - name: nightly
                    time_intervals: [{weekdays: [mon]}]
                  - {name: empty}
                """);
    String q = dir.resolve("alerts/q.yaml").toString();
    String c = dir.resolve("specwatch.yaml").toString();
    assertThat(problems(config))
        .containsExactly(
            q
                + ":5:23: mute_time_intervals[0]: no time interval 'nigthly' in the config file's"
                + " time_intervals (did you mean 'nightly'?)",
            q
                + ":5:32: mute_time_intervals[1]: no time interval 'weekends' in the config file's"
                + " time_intervals; defined: nightly, year-end, empty",
            c
                + ":13:11: time_intervals[2].name: time interval 'nightly' is already defined at "
                + c
                + ":4:11",
            c
                + ":14:34: time_intervals[2].time_intervals[0].weekdays[0]: 'mon' is not a weekday"
                + " (did you mean 'monday'?)",
            c + ":15:5: time_intervals[3].time_intervals: is required: a list of intervals");
  }

  private static List<String> problems(Path config) {
    try {
      new ConfigLoader(Map.<String, String>of()::get).load(config);
    } catch (InvalidInputException e) {
      return e.problems().stream().map(Problem::toString).toList();
    }
    throw new AssertionError("expected the config to be invalid");
  }
}
