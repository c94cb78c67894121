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
      "Lists the alerts the policies would have raised over a past range.",
      "Evaluates through the same state machine as the daemon. Notifies nothing and does not touch the daemon's state: tune thresholds on last month's data before paging anyone."
    })
final class ReplayCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin ConfigOption config;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "TIME",
      description = "Start: RFC 3339 or Unix seconds.")
  Instant from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "TIME",
      description = "End: RFC 3339 or Unix seconds.")
  Instant to;

  @Option(
      names = "--step",
      paramLabel = "DURATION",
      description = "Evaluation step (default: evaluation.interval).")
  Duration step;

  @Mixin OutputOption output;

  @Override
  public Integer call() throws JsonProcessingException, PrometheusException {
    PrintWriter out = spec.commandLine().getOut();
    if (!to.isAfter(from)) {
      throw new UsageException("--to must be after --from");
    }
    SpecwatchConfig c = config.load();
    Duration s = step == null ? c.evaluation().interval() : step;
    Replayer.Result result =
        new Replayer(new PrometheusClient(c.prometheus()), c.alerting())
            .replay(c.recipes(), c.evaluation().window(), from, to, s);
    if (output.json()) {
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
        m.put("silenced", t.silenced());
        list.add(m);
      }
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("from", from.toString());
      root.put("to", to.toString());
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
        from,
        to,
        Durations.format(s),
        result.queries());
    if (result.transitions().isEmpty()) {
      out.println("no alert would have fired");
    }
    for (Transition t : result.transitions()) {
      out.printf(
          Locale.ROOT,
          "%s  %-8s %-45s %s%s%n",
          t.at(),
          t.kind().name().toLowerCase(Locale.ROOT),
          t.alertId(),
          t.reason(),
          t.silenced() ? " [in a maintenance window: not notified]" : "");
    }
    long fired =
        result.transitions().stream().filter(t -> t.kind() == Transition.Kind.FIRING).count();
    long held = result.transitions().stream().filter(Transition::silenced).count();
    out.printf(
        Locale.ROOT,
        "%d firing, %d resolved%s%n",
        fired,
        result.transitions().size() - fired,
        held == 0 ? "" : "; " + held + " of them in maintenance windows, not notified");
    return ExitCodes.OK;
  }
}
