package dev.specwatch.digest;

import dev.specwatch.model.Policy;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.signals.EngineProfile;
import java.time.Duration;
import java.time.Instant;

/** The digest's sentence on a recipe without data: what Prometheus does hold over the week. */
final class NoDataReason {
  private NoDataReason() {}

  /**
   * Why a recipe has no data, from what Prometheus holds over the week: nothing of the engine at
   * all (not scraped yet: not the match's fault), the engine's generation counter for the match but
   * no speculative series, or series of the engine that the match does not select.
   */
  static String of(PrometheusApi api, Policy p, Duration week, Instant end)
      throws PrometheusException {
    String served = EngineProfile.SERVED.get(p.engine());
    String range = "[" + dev.specwatch.signals.PromQl.range(week) + "]";
    String match = dev.specwatch.signals.PromQl.selector(p.matchers());
    Double any = DigestCollector.value(api, "count(last_over_time(" + served + range + "))", end);
    if (any == null || any == 0) {
      return "Prometheus holds no "
          + served
          + " series at all this week: the "
          + p.engine().key()
          + " server is not scraped (yet), whatever the match says";
    }
    Double matched =
        DigestCollector.value(api, "count(last_over_time(" + served + match + range + "))", end);
    if (matched != null && matched > 0) {
      return "the match finds "
          + served
          + " but no speculative-decoding series: is speculative decoding on for this model?";
    }
    return "the match selects none of the "
        + served
        + " series Prometheus holds: check the policy's match labels (`specwatch check` names the"
        + " closest value)";
  }
}
