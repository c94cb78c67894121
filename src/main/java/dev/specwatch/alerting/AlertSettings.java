package dev.specwatch.alerting;

import dev.specwatch.model.SpecwatchConfig;
import java.time.Duration;

/**
 * Engine-wide timing (config key {@code alerting}).
 *
 * @param idleResolveAfter a firing alert whose recipe gives no verdict (idle, low traffic, no data)
 *     this long resolves with that reason
 * @param datasourceFailureFor queries failing this long fire one datasource_unavailable alert
 */
public record AlertSettings(Duration idleResolveAfter, Duration datasourceFailureFor) {
  public static final Duration DEFAULT_IDLE_RESOLVE_AFTER = Duration.ofHours(1);
  public static final Duration DEFAULT_DATASOURCE_FAILURE_FOR = Duration.ofMinutes(2);

  public static AlertSettings from(SpecwatchConfig.Alerting alerting) {
    return new AlertSettings(alerting.idleResolveAfter(), alerting.datasourceFailureFor());
  }

  public static AlertSettings defaults() {
    return new AlertSettings(DEFAULT_IDLE_RESOLVE_AFTER, DEFAULT_DATASOURCE_FAILURE_FOR);
  }
}
