package dev.specwatch.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A fleet whose Prometheus lost a job logs a dozen lines, not one per recipe (3,334 WARN lines at
 * once in `make scale-bench` before).
 */
class NoDataLogTest {
  @Test
  void theFirstTenRecipesGetALineEachAndTheRestShareOne() {
    Map<String, String> hints = new LinkedHashMap<>();
    IntStream.range(0, 3334)
        .forEach(i -> hints.put("r" + i, "model_name=\"m" + i + "\" selects no series"));
    List<String> lines = NoDataLog.noData(hints);
    assertThat(lines).hasSize(11);
    assertThat(lines.get(0))
        .isEqualTo(
            "recipe r0 reads no data, so it cannot alert: model_name=\"m0\" selects no series");
    assertThat(lines.get(9)).startsWith("recipe r9 reads no data");
    assertThat(lines.get(10))
        .startsWith("3324 more recipes read no data, so they cannot alert: r10, r11,")
        .contains("r29, …")
        .doesNotContain("r30")
        .endsWith("(each one's reason: specwatch check, /api/v1/recipes, the recipe pages)");
  }

  @Test
  void aFewRecipesGetALineEach() {
    assertThat(NoDataLog.noData(Map.of("typo", "did you mean …")))
        .containsExactly("recipe typo reads no data, so it cannot alert: did you mean …");
    assertThat(NoDataLog.noData(Map.of())).isEmpty();
    List<String> eleven = IntStream.range(0, 11).mapToObj(i -> "r" + i).toList();
    assertThat(NoDataLog.dataAgain(eleven))
        .hasSize(11)
        .startsWith("recipe r0 has data again")
        .endsWith("1 more recipe has data again: r10");
    assertThat(NoDataLog.dataAgain(List.of("a"))).containsExactly("recipe a has data again");
  }
}
