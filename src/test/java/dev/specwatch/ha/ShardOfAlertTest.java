package dev.specwatch.ha;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ShardOfAlertTest {
  @Test
  void anAlertLivesOnItsRecipesShardWhateverSlashesTheRecipeNameHas() {
    for (int shards : new int[] {2, 3, 7, 16}) {
      for (String recipe : new String[] {"qwen", "team-a/qwen", "a/b/c", "it/we\"ird"}) {
        int shard = Cluster.shardOf(recipe, shards);
        assertThat(Cluster.shardOfAlert(recipe + "/acceptance_rate", shards))
            .as("%s over %d shards", recipe, shards)
            .isEqualTo(shard);
        assertThat(Cluster.shardOfAlert(recipe + "/position_acceptance[2]", shards))
            .isEqualTo(shard);
      }
      assertThat(Cluster.shardOfAlert("specwatch/datasource_unavailable", shards)).isZero();
    }
    // The case that lost reminders: "team-a/qwen" hashes elsewhere than "team-a".
    assertThat(Cluster.shardOf("team-a/qwen", 16)).isNotEqualTo(Cluster.shardOf("team-a", 16));
  }
}
