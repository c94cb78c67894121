package dev.specwatch.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.alerting.Replayer;
import dev.specwatch.alerting.Transition;
import dev.specwatch.model.Durations;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusClient;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.signals.EvaluationJson;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
      "Evaluates the policies over a past range, through the same state machine as the daemon,",
      "and lists every alert that would have fired and resolved. Notifies nothing and does not",
      "touch the daemon's state: tune thresholds on last month's data before paging anyone."
    })
final class ReplayCommand implements Callable<Integer> {
  enum Output {
    text,
    json
  }

  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "TIME",
      description = "Start: RFC 3339 or Unix seconds.")
  String from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "TIME",
      description = "End: RFC 3339 or Unix seconds.")
  String to;

  @Option(
      names = "--step",
      paramLabel = "DURATION",
      description = "Evaluation step (default:" + " evaluation.interval).")
  String step;

  @Option(names = "--output", defaultValue = "text", description = "text (default) or json.")
  Output output;

  @Override
  public Integer call() throws JsonProcessingException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<Instant> start = CheckCommand.parseTime(from);
    Optional<Instant> end = CheckCommand.parseTime(to);
    if (start.isEmpty() || end.isEmpty() || !end.get().isAfter(start.get())) {
      err.println("specwatch replay: --from and --to expect RFC 3339 or Unix seconds, from < to");
      return ExitCodes.INVALID_INPUT;
    }
    Optional<SpecwatchConfig> c = config.load(err);
    if (c.isEmpty()) {
      return ExitCodes.INVALID_INPUT;
    }
    Duration s =
        step == null
            ? c.get().evaluation().interval()
            : Durations.parse(step).orElse(Duration.ZERO);
    if (s.isZero()) {
      err.println("specwatch replay: --step expects a duration like 30s");
      return ExitCodes.INVALID_INPUT;
    }
    Replayer.Result result;
    try {
      result =
          new Replayer(new PrometheusClient(c.get().prometheus()), c.get().alerting())
              .replay(c.get().policies(), c.get().evaluation().window(), start.get(), end.get(), s);
    } catch (PrometheusException e) {
      err.println("specwatch replay: " + e.getMessage());
      return ExitCodes.DATASOURCE;
    }
    if (output == Output.json) {
      List<Object> list = new ArrayList<>();
      for (Transition t : result.transitions()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", t.at().toString());
        m.put("event", t.kind().name().toLowerCase(Locale.ROOT));
        m.put("alert_id", t.alertId());
        m.put("recipe", t.recipe());
        m.put("rule", t.rule());
        m.put("value", t.value());
        m.put("threshold", t.threshold());
        m.put("since", t.since().toString());
        m.put("reason", t.reason());
        list.add(m);
      }
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("from", start.get().toString());
      root.put("to", end.get().toString());
      root.put("step", Durations.format(s));
      root.put("steps", result.steps());
      root.put("transitions", list);
      out.println(EvaluationJson.MAPPER.writeValueAsString(root));
      return ExitCodes.OK;
    }
    out.printf(
        Locale.ROOT,
        "replayed %d evaluations from %s to %s every %s (%d range queries)%n",
        result.steps(),
        start.get(),
        end.get(),
        Durations.format(s),
        result.queries());
    if (result.transitions().isEmpty()) {
      out.println("no alert would have fired");
    }
    for (Transition t : result.transitions()) {
      out.printf(
          Locale.ROOT,
          "%s  %-8s %-45s %s%n",
          t.at(),
          t.kind().name().toLowerCase(Locale.ROOT),
          t.alertId(),
          t.reason());
    }
    long fired =
        result.transitions().stream().filter(t -> t.kind() == Transition.Kind.FIRING).count();
    out.printf(Locale.ROOT, "%d firing, %d resolved%n", fired, result.transitions().size() - fired);
    return ExitCodes.OK;
  }
}
