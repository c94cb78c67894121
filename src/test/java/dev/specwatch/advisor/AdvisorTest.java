package dev.specwatch.advisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdvisorTest {
  /** Leviathan et al. (2023): E = (1 − α^{k+1}) / (1 − α); speed-up E / (k·c + 1). */
  static double closedFormTokens(double alpha, int k) {
    return (1 - Math.pow(alpha, k + 1)) / (1 - alpha);
  }

  static List<Double> iid(double alpha, int k) {
    List<Double> a = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      a.add(Math.pow(alpha, i + 1));
    }
    return a;
  }

  @Test
  void matchesTheClosedFormForIidAcceptanceIncludingTheExtrapolation() {
    for (double alpha : new double[] {0.5, 0.7, 0.8, 0.9}) {
      Advisor.Advice advice = Advisor.advise(iid(alpha, 3), 3, 0.1, 1e6);
      assertThat(advice.options()).hasSize(5);
      for (Advisor.Option o : advice.options()) {
        assertThat(o.expectedTokens())
            .as("alpha %s, k %s", alpha, o.k())
            .isCloseTo(closedFormTokens(alpha, o.k()), within(1e-9));
        assertThat(o.speedup())
            .isCloseTo(closedFormTokens(alpha, o.k()) / (o.k() * 0.1 + 1), within(1e-9));
      }
    }
  }

  @Test
  void recommendsTheKWithTheBestSpeedupAndItsGain() {
    // Qwen3.8-27B-NVFP4 on code, k=3: 0.93/0.84/0.74, cheap MTP head (c = 0.05).
    Advisor.Advice advice = Advisor.advise(List.of(0.93, 0.84, 0.74), 3, 0.05, 50_000);
    assertThat(advice.recommended().k()).isEqualTo(3);
    assertThat(advice.gain()).isGreaterThanOrEqualTo(0);
    // Prose-like acceptance with an expensive draft model: fewer tokens are better.
    Advisor.Advice prose = Advisor.advise(List.of(0.5, 0.25, 0.12, 0.06), 4, 0.3, 50_000);
    assertThat(prose.recommended().k()).isEqualTo(1);
    assertThat(prose.gain()).isPositive();
    assertThat(prose.warning()).isNull();
  }

  @Test
  void belowTheDataFloorThereIsNoRecommendation() {
    Advisor.Advice thin = Advisor.advise(List.of(0.8, 0.6), 2, 0.1, 120);
    assertThat(thin.enough()).isFalse();
    assertThat(thin.warning())
        .isEqualTo("not enough data: 120 drafts (a recommendation needs 1000)");
    assertThat(thin.recommended().k()).as("stays at the current k").isEqualTo(2);
    assertThat(thin.gain()).isZero();
    assertThat(thin.basis()).isEqualTo("2 measured positions of k=2, 120 drafts");
  }

  @Test
  void oneMeasuredPositionRecommendsNoLargerK() {
    // k=1 with 0.8 acceptance: before, "k=3, +40.8 %" from this single number.
    Advisor.Advice one = Advisor.advise(List.of(0.8), 1, 0.1, 50_000);
    assertThat(one.enough()).isFalse();
    assertThat(one.recommended().k()).isEqualTo(1);
    assertThat(one.warning()).contains("one measured position");
    assertThat(one.basis()).isEqualTo("1 measured position of k=1, 50000 drafts");
  }

  @Test
  void neverRecommendsAKBeyondTheMeasuredPositionsAndNamesTheOneItWouldTry() {
    // The demo's EAGLE Llama (0.8, 0.6, 0.4 at k=3): the model puts k=4 0.7 % above k=3, from an
    // extrapolated fourth position. Before, "recommended: num_speculative_tokens=4".
    Advisor.Advice eagle = Advisor.advise(List.of(0.8, 0.6, 0.4), 3, 0.1, 1e6);
    assertThat(eagle.options().get(3).extrapolated()).isTrue();
    assertThat(eagle.options().get(3).speedup()).isGreaterThan(eagle.options().get(2).speedup());
    assertThat(eagle.recommended().k()).isEqualTo(3);
    assertThat(eagle.recommended().extrapolated()).isFalse();
    assertThat(eagle.gain()).isZero();
    assertThat(eagle.warning())
        .isEqualTo(
            "k=4 is modelled +0.7 % above k=3, beyond the 3 measured positions (extrapolated, not"
                + " recommended): try it with a benchmark");
    // Whatever the acceptance and cost, the recommendation is a measured position.
    for (double alpha : new double[] {0.5, 0.8, 0.95, 0.99}) {
      for (double c : new double[] {0, 0.02, 0.1, 0.4}) {
        Advisor.Advice a = Advisor.advise(iid(alpha, 3), 3, c, 1e6);
        assertThat(a.recommended().k()).as("alpha %s, c %s", alpha, c).isBetween(1, 3);
      }
    }
  }
}
