package dev.specwatch.ha;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cluster as its database records it ({@code GET /api/v1/cluster}): the replicas with their
 * last check-in (Quartz's {@code qrtz_scheduler_state}), the jobs running now ({@code
 * qrtz_fired_triggers}) and which replica ran each job last ({@code sw_job_run}).
 *
 * @param self the replica answering
 * @param members every replica that checked in, alive or not yet taken over
 * @param jobs every job that ran, by name
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record ClusterView(
    String self, int shards, long checkinIntervalMs, List<Member> members, List<Job> jobs) {

  /** Always true: a view exists only in a cluster. */
  public boolean clustered() {
    return true;
  }

  /**
   * @param alive checked in within two check-in intervals
   * @param running jobs it runs right now
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Member(
      String instance, String lastCheckin, boolean alive, boolean self, List<String> running) {}

  /**
   * @param runningOn the replica running it now; null when idle
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Job(
      String job, String lastRunBy, String startedAt, String finishedAt, String runningOn) {}

  static ClusterView read(Database db, SpecwatchConfig.Database settings, Instant now)
      throws IOException {
    return db.call(
        "reading the cluster",
        c -> {
          Map<String, List<String>> running = new TreeMap<>();
          Map<String, String> runningOn = new TreeMap<>();
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT instance_name, job_name FROM qrtz_fired_triggers"
                      + " WHERE sched_name = ? AND state = 'EXECUTING' ORDER BY job_name")) {
            s.setString(1, ClusterScheduler.NAME);
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                running.computeIfAbsent(r.getString(1), k -> new ArrayList<>()).add(r.getString(2));
                runningOn.put(r.getString(2), r.getString(1));
              }
            }
          }
          List<Member> members = new ArrayList<>();
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT instance_name, last_checkin_time, checkin_interval"
                      + " FROM qrtz_scheduler_state WHERE sched_name = ? ORDER BY instance_name")) {
            s.setString(1, ClusterScheduler.NAME);
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                String name = r.getString(1);
                Instant checkin = Instant.ofEpochMilli(r.getLong(2));
                boolean alive = checkin.plusMillis(2 * r.getLong(3)).isAfter(now);
                members.add(
                    new Member(
                        name,
                        checkin.toString(),
                        alive,
                        name.equals(db.instance()),
                        running.getOrDefault(name, List.of())));
              }
            }
          }
          List<Job> jobs = new ArrayList<>();
          try (PreparedStatement s =
                  c.prepareStatement(
                      "SELECT job, instance, started_at, finished_at FROM sw_job_run ORDER BY job");
              ResultSet r = s.executeQuery()) {
            while (r.next()) {
              Timestamp finished = r.getTimestamp(4);
              jobs.add(
                  new Job(
                      r.getString(1),
                      r.getString(2),
                      r.getTimestamp(3).toInstant().toString(),
                      finished == null ? null : finished.toInstant().toString(),
                      runningOn.get(r.getString(1))));
            }
          }
          return new ClusterView(
              db.instance(),
              settings.shards(),
              settings.checkinInterval().toMillis(),
              members,
              jobs);
        });
  }
}
