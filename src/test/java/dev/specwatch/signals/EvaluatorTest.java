package dev.specwatch.signals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.model.Policy;
import dev.specwatch.model.Threshold;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.prometheus.Sample;
import dev.specwatch.testing.FakePrometheus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class EvaluatorTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  static Policy policy(String name, String model, int k, long minDrafts) {
    return Policy.builder(name, Map.of("job", "vllm", "model_name", model), k)
        .minDrafts(minDrafts)
        .acceptanceRate(Threshold.below(0.45))
        .positionAcceptance(0, Threshold.below(0.6))
        .build();
  }

  private static Sample sample(String model, double value, String... extra) {
    Map<String, String> labels = new TreeMap<>();
    labels.put("job", "vllm");
    labels.put("model_name", model);
    for (int i = 0; i < extra.length; i += 2) {
      labels.put(extra[i], extra[i + 1]);
    }
    return new Sample(labels, NOW, value);
  }

  /** Prometheus' answer for a fleet where model m-i has acceptance a(i) and d(i) drafts. */
  private static List<Sample> fleet(String promql, int n) {
    List<Sample> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String model = "m-" + i;
      double acceptance = i % 10 == 0 ? 0.3 : 0.8;
      double drafts = i % 7 == 0 ? 0 : 1000;
      // Forms with an older-vLLM fallback come parenthesised: "(exact or (fallback ...))".
      if (promql.startsWith("sum by (job, model_name) (increase(vllm:spec_decode_num_drafts")
          || promql.startsWith("(sum by (job, model_name) (increase(vllm:spec_decode_num_drafts")) {
        out.add(sample(model, drafts));
      } else if (drafts == 0) {
        // ratios: no sample when idle
      } else if (promql.contains("group_left")) {
        out.add(sample(model, acceptance + 0.1, "position", "0"));
        out.add(sample(model, acceptance - 0.1, "position", "1"));
      } else if (promql.startsWith("1 + ") || promql.startsWith("(1 + ")) {
        out.add(sample(model, 1 + 2 * acceptance));
      } else if (promql.contains("accepted_tokens_total") && promql.contains("/")) {
        out.add(sample(model, acceptance));
      } else {
        out.add(sample(model, 100.0));
      }
    }
    return out;
  }

  @Test
  void queryCountDoesNotGrowWithRecipes() {
    for (int n : List.of(1, 10, 1000)) {
      List<Policy> policies = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        policies.add(policy("r" + i, "m-" + i, 2, 100));
      }
      FakePrometheus fake = FakePrometheus.of(q -> fleet(q, n));
      Evaluation e =
          new Evaluator(fake, CLOCK).evaluate(policies, Duration.ofMinutes(5), Optional.empty());
      // seven signals, one for the release shape (whether num_drafts is exported), one for
      // how much of the window the data covers and one for the k the servers report
      assertThat(e.queries()).as("%d recipes", n).isEqualTo(10);
      assertThat(fake.queries()).hasSize(10);
    }
  }

  @Test
  void mapsResultsBackToRecipesAndDecidesTheirState() {
    List<Policy> policies =
        List.of(
            policy("healthy", "m-1", 2, 100),
            policy("regressed", "m-10", 2, 100),
            policy("idle", "m-14", 2, 100),
            policy("low", "m-2", 2, 5000),
            policy("missing", "m-absent", 2, 100));
    Evaluation e =
        new Evaluator(FakePrometheus.of(q -> fleet(q, 20)), CLOCK)
            .evaluate(policies, Duration.ofMinutes(5), Optional.empty());
    assertThat(e.evaluatedAt()).isEqualTo(NOW);
    assertThat(e.recipes())
        .extracting(r -> r.recipe() + "=" + r.state().key())
        .containsExactly(
            "healthy=ok", "regressed=breach", "idle=idle", "low=low_traffic", "missing=no_data");
    RecipeSnapshot healthy = e.recipes().get(0);
    assertThat(healthy.signals().acceptanceRate()).isEqualTo(0.8);
    assertThat(healthy.signals().positionAcceptance()).containsExactly(0.9, 0.7000000000000001);
    RecipeSnapshot regressed = e.recipes().get(1);
    assertThat(regressed.breaches())
        .extracting(Breach::id)
        .containsExactly("acceptance_rate", "position_acceptance[0]");
    RecipeSnapshot idle = e.recipes().get(2);
    assertThat(idle.signals().acceptanceRate()).isNull();
    assertThat(idle.breaches()).isEmpty();
  }

  @Test
  void aDatasourceErrorMarksTheGroupAsError() {
    FakePrometheus failing =
        new FakePrometheus(
            q -> {
              throw new PrometheusException(
                  PrometheusException.Kind.TRANSPORT,
                  0,
                  "http://p:9090/api/v1/query: connection refused");
            });
    Evaluation e =
        new Evaluator(failing, CLOCK)
            .evaluate(List.of(policy("a", "m", 1, 1)), Duration.ofMinutes(5), Optional.empty());
    assertThat(e.anyDatasourceError()).isTrue();
    assertThat(e.recipes().get(0).error())
        .contains("http://p:9090/api/v1/query: connection refused");
    assertThat(e.queries()).as("stops at the first failure").isEqualTo(1);
  }

  @Test
  void oneQueryPerSignalNamesEveryRecipe() {
    List<Policy> policies = List.of(policy("a", "qwen \"x\"", 1, 1), policy("b", "a.b|c", 1, 1));
    FakePrometheus fake = FakePrometheus.of(q -> List.of());
    new Evaluator(fake, CLOCK).evaluate(policies, Duration.ofMinutes(5), Optional.empty());
    assertThat(fake.queries().get(0))
        .contains("{job=\"vllm\",model_name=~\"a\\\\.b\\\\|c|qwen \\\"x\\\"\"}");
  }

  @Property
  void promqlQuotingRoundTrips(@ForAll String value) {
    assertThat(unquoteGo(PromQl.quote(value))).isEqualTo(value);
  }

  @Property
  void escapedRegexMatchesExactlyTheLiteral(@ForAll String value) {
    Pattern p = Pattern.compile(Evaluator.escapeRegex(value), Pattern.DOTALL);
    assertThat(p.matcher(value).matches()).isTrue();
    assertThat(p.matcher(value + "x").matches()).isFalse();
  }

  /** Go's strconv.Unquote for the escapes PromQL strings use. */
  static String unquoteGo(String quoted) {
    assertThat(quoted).startsWith("\"").endsWith("\"");
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < quoted.length() - 1; i++) {
      char c = quoted.charAt(i);
      assertThat(c).as("raw control or quote in %s", quoted).isNotEqualTo('"').isNotEqualTo('\n');
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = quoted.charAt(++i);
      switch (e) {
        case '\\' -> out.append('\\');
        case '"' -> out.append('"');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'x' -> {
          out.append((char) Integer.parseInt(quoted.substring(i + 1, i + 3), 16));
          i += 2;
        }
        default -> throw new AssertionError("unknown escape \\" + e);
      }
    }
    return out.toString();
  }
}
