package dev.specwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.specwatch.alerting.Transition;
import dev.specwatch.testing.Transitions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeldOutBenchTest {
  @Test
  void aListOfFamiliesSelectsWholeNamesCommasInThemIncluded() {
    String only = "long-memory wander, weekly, trend, heavy tails,a nightly evaluation harness";
    assertThat(HeldOutBench.selected("weekly, trend, heavy tails", only)).isTrue();
    assertThat(HeldOutBench.selected("long-memory wander", only)).isTrue();
    assertThat(HeldOutBench.selected("a nightly evaluation harness", only)).isTrue();
    // A name not in the list, and part of a name, are not selected.
    assertThat(HeldOutBench.selected("regime switching", only)).isFalse();
    assertThat(HeldOutBench.selected("long-memory", only)).isFalse();
    assertThat(HeldOutBench.selected("evaluation harness", only)).isFalse();
    // Every family of the bench is selected by its own name.
    for (HeldOutBench.Family f : HeldOutBench.FAMILIES) {
      assertThat(HeldOutBench.selected(f.name(), f.name())).as(f.name()).isTrue();
    }
    // Without a list, every family not held back.
    assertThat(HeldOutBench.selected("regime switching", "")).isTrue();
  }

  private static final Instant STEP = Instant.parse("2026-11-30T14:00:00Z");
  private static final Instant END = STEP.plus(Duration.ofDays(1));

  private static Transition at(Transition.Kind kind, int minutes) {
    return Transitions.acceptanceOf("r", 0, kind, STEP.plusSeconds(60L * minutes));
  }

  private static HeldOutBench.Case drop(String kind) {
    return new HeldOutBench.Case(null, null, kind, STEP);
  }

  @Test
  void aDropsPageIsTimedFromTheStepItsResolutionFromTheFixAndAnEarlyResolutionCounted() {
    var firing = Transition.Kind.FIRING;
    var resolved = Transition.Kind.RESOLVED;
    // A page before the step is not the drop's; the drop's at 12 minutes, resolved 25 minutes
    // after the fix (at 60 minutes).
    HeldOutBench.Recovery fixed =
        HeldOutBench.recovery(
            drop(HeldOutBench.FIXED),
            List.of(at(firing, -90), at(resolved, -30), at(firing, 12), at(resolved, 85)),
            END);
    assertThat(fixed.paged()).isEqualTo(12.0);
    assertThat(fixed.resolvedAfterFix()).isEqualTo(25.0);
    assertThat(fixed.resolvedDuring()).isZero();
    // Resolved at 40 minutes while the drop lasted, paged again, resolved after the fix.
    HeldOutBench.Recovery early =
        HeldOutBench.recovery(
            drop(HeldOutBench.FIXED),
            List.of(at(firing, 5), at(resolved, 40), at(firing, 50), at(resolved, 70)),
            END);
    assertThat(early.resolvedDuring()).isEqualTo(1);
    assertThat(early.resolvedAfterFix()).isEqualTo(10.0);
    // A lasting drop: any resolution before the end of the replay is early; never paged is NaN.
    assertThat(
            HeldOutBench.recovery(drop("30 %"), List.of(at(firing, 3), at(resolved, 600)), END)
                .resolvedDuring())
        .isEqualTo(1);
    assertThat(HeldOutBench.recovery(drop("15 %"), List.of(), END).paged()).isNaN();
    // Healthy cases, dips and floor steps have no drop to recover from.
    assertThat(HeldOutBench.recovery(drop("floor -10 %"), List.of(at(firing, 3)), END)).isNull();
  }

  @Test
  void aFalsePageIsOpenUntilItsFirstResolutionAndTheReportSaysHowLong() {
    var firing = Transition.Kind.FIRING;
    var resolved = Transition.Kind.RESOLVED;
    List<Transition> own =
        List.of(at(firing, -300), at(resolved, -254), at(firing, -100), at(resolved, 20));
    assertThat(HeldOutBench.openMinutes(own.get(0), own)).isEqualTo(46.0);
    assertThat(HeldOutBench.openMinutes(own.get(2), own)).isEqualTo(120.0);
    // Never resolved: open to the end.
    assertThat(HeldOutBench.openMinutes(at(firing, 30), List.of(at(firing, 30)))).isNaN();
    String report =
        HeldOutBench.recoveryReport(
            java.util.Map.of("f | change", java.util.Arrays.asList((HeldOutBench.Recovery) null)),
            java.util.Map.of("f | change", List.of(46.0, 120.0, Double.NaN)));
    assertThat(report).contains("| f | change | – | – | 0 of 0 | 46 / 120 min (2 of 3) |");
    assertThat(
            HeldOutBench.recoveryReport(
                java.util.Map.of("f | change", List.of()), java.util.Map.of()))
        .contains("| 0 of 0 | none |");
  }
}
