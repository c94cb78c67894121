package dev.specwatch.cli;

import dev.specwatch.model.Policy;
import dev.specwatch.signals.ActiveK;
import dev.specwatch.signals.EngineProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * discover's check of the configured policies against the k the servers report: a policy whose
 * {@code match} selects a found model (same engine; its job and model_name, where it names them)
 * and whose {@code num_speculative_tokens} is not the servers' k (where the engine says it exactly)
 * or is below the longest draft seen (where it is a lower bound). Labels other than job and
 * model_name are not looked at: such a policy may select part of the model's servers only.
 */
final class KAgreement {
  private KAgreement() {}

  /** One sentence per disagreeing policy, for the model found. */
  static List<String> warnings(Discovery.Found f, List<Policy> policies) {
    List<String> out = new ArrayList<>();
    if (f.k().isEmpty()) {
      return out;
    }
    int seen = f.k().get();
    boolean exact = EngineProfile.of(f.engine()).activeK().map(ActiveK::exact).orElse(false);
    // What the servers said, judged as check judges it (ActiveK.Reading's one decision).
    ActiveK.Reading reading = new ActiveK.Reading(seen, seen, exact, false, f.kSource());
    for (Policy p : policies) {
      if (p.engine() != f.engine() || !selects(p.match(), f) || p.numSpeculativeTokens() == 0) {
        continue;
      }
      int k = p.numSpeculativeTokens();
      if (reading.note(k).isPresent()) {
        out.add(
            "recipe '"
                + p.recipe()
                + "' ("
                + p.source()
                + ") has num_speculative_tokens: "
                + k
                + (exact ? ", the servers run k = " : ", drafts reach ")
                + seen
                + " ("
                + f.kSource()
                + "): set it to "
                + (exact ? "" : "at least ")
                + seen);
      }
    }
    return out;
  }

  private static boolean selects(Map<String, String> match, Discovery.Found f) {
    String job = match.get("job");
    String model = match.get("model_name");
    if (job == null && model == null) {
      return false;
    }
    return (job == null || job.equals(f.job())) && (model == null || model.equals(f.modelName()));
  }
}
