package dev.specwatch.alerting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.specwatch.ha.Cluster;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AlertKeyTest {
  private static final String[] RECIPES = {
    "qwen", "team-a/qwen", "a/b/c", "it/we\"ird", "spec watch", "specwatch-test", "x[1]/y"
  };

  @Test
  void theIdIsTheKeysStoredFormAndParsesBackExactly() {
    for (String recipe : RECIPES) {
      for (AlertKey key :
          new AlertKey[] {
            AlertKey.of(recipe, "acceptance_rate", null),
            AlertKey.of(recipe, "position_acceptance", 2),
            AlertKey.of(recipe, "change", null)
          }) {
        assertThat(AlertKey.parse(key.id())).as(key.id()).isEqualTo(key);
        assertThat(key.specwatch()).isFalse();
      }
    }
    assertThat(AlertKey.of("team-a/qwen", "position_acceptance", 3).id())
        .isEqualTo("team-a/qwen/position_acceptance[3]");
    AlertKey own = AlertKey.specwatch("datasource_unavailable");
    assertThat(own.id()).isEqualTo("specwatch/datasource_unavailable");
    assertThat(AlertKey.parse(own.id())).isEqualTo(own);
    assertThat(own.specwatch()).isTrue();
    assertThat(AlertEngine.DATASOURCE).isEqualTo(own);
  }

  @Test
  void anAlertLivesOnItsRecipesShardWhateverSlashesTheRecipeNameHas() {
    for (int shards : new int[] {2, 3, 7, 16}) {
      for (String recipe : RECIPES) {
        int shard = Cluster.shardOf(recipe, shards);
        assertThat(AlertKey.of(recipe, "acceptance_rate", null).shard(shards))
            .as("%s over %d shards", recipe, shards)
            .isEqualTo(shard);
        assertThat(AlertKey.parse(recipe + "/position_acceptance[2]").shard(shards))
            .isEqualTo(shard);
      }
      assertThat(AlertKey.specwatch("state_recovered").shard(shards)).isZero();
    }
    // The case that lost reminders: "team-a/qwen" hashes elsewhere than "team-a".
    assertThat(Cluster.shardOf("team-a/qwen", 16)).isNotEqualTo(Cluster.shardOf("team-a", 16));
  }

  @Test
  void whatIsNotAKeyIsRefusedRatherThanGuessed() {
    for (String id : new String[] {"qwen", "/acceptance_rate", "qwen/", "qwen/Accept", "q/r[x]"}) {
      assertThatThrownBy(() -> AlertKey.parse(id))
          .as(id)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not an alert id");
    }
    assertThatThrownBy(() -> AlertKey.of("*", "change", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AlertKey.of("qwen", "a/b", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a rule name");
  }

  @Test
  void alertsAndTheirTransitionsCarryTheSameKey() {
    ActiveAlert a =
        ActiveAlert.firing(
            AlertKey.of("team-a/qwen", "position_acceptance", 1),
            dev.specwatch.model.Severity.WARNING,
            Instant.parse("2026-11-30T12:00:00Z"),
            null,
            0.5);
    assertThat(a.key().id()).isEqualTo(a.id());
    assertThat(a.key().specwatch()).isFalse();
  }
}
