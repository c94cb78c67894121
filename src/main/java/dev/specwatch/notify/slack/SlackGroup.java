package dev.specwatch.notify.slack;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.specwatch.alerting.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One group of alerts for one Slack channel (docs/NOTIFICATIONS.md, "Grouping"), as stored in
 * {@code slack-groups.json} or the shared database: who is in it, what its message shows, and what
 * of each member has reached Slack, so no retry (by any replica, or after a restart) posts or edits
 * again what already landed.
 *
 * @param sendAt when the wait for more members ends and the group's message is decided
 * @param ts the group message once posted; null while waiting
 * @param lastEditAt the last post or edit of the group message (edits are at most one a
 *     group_interval)
 * @param members by alert id, in the order they joined
 * @param unreplied members whose resolve the message shows and whose thread reply is still to go
 * @param postingAt when a post of the group message began whose outcome is not recorded (a crash
 *     may have come between Slack's acceptance and the record); null otherwise
 */
public record SlackGroup(
    String id,
    String channel,
    Instant openedAt,
    Instant sendAt,
    String ts,
    Instant lastEditAt,
    Map<String, Member> members,
    List<String> unreplied,
    Instant postingAt) {

  public SlackGroup {
    members = new LinkedHashMap<>(members);
    unreplied = List.copyOf(unreplied);
  }

  /**
   * One alert of the group.
   *
   * @param headline what it says on the group message ("storm-01: acceptance rate 0.300, 40 % below
   *     its 0.500 threshold")
   * @param listed whether the group message (as posted or last edited) lists it
   * @param detailTs its detail reply in the group's thread (its buttons, its repeats); null until
   *     posted
   * @param recovered its resolve's words; null while firing
   * @param resolveShown whether the group message shows it recovered
   * @param done its resolve is delivered: nothing of it is left to send
   */
  public record Member(
      String recipe,
      String rule,
      dev.specwatch.model.Severity severity,
      String headline,
      Instant firedAt,
      boolean listed,
      String detailTs,
      Instant resolvedAt,
      String recovered,
      boolean resolveShown,
      boolean done) {

    static Member of(Transition t) {
      return new Member(
          t.recipe(),
          SlackMessages.label(t),
          t.severity(),
          SlackMessages.headline(t),
          t.at(),
          false,
          null,
          null,
          null,
          false,
          false);
    }

    Member asListed() {
      return new Member(
          recipe,
          rule,
          severity,
          headline,
          firedAt,
          true,
          detailTs,
          resolvedAt,
          recovered,
          resolveShown,
          done);
    }

    Member withDetail(String ts) {
      return new Member(
          recipe,
          rule,
          severity,
          headline,
          firedAt,
          listed,
          ts,
          resolvedAt,
          recovered,
          resolveShown,
          done);
    }

    Member asResolved(Transition t) {
      return new Member(
          recipe,
          rule,
          severity,
          headline,
          firedAt,
          listed,
          detailTs,
          t.at(),
          SlackMessages.duration(t.since(), t.at()),
          resolveShown,
          done);
    }

    Member asShownResolved() {
      return new Member(
          recipe,
          rule,
          severity,
          headline,
          firedAt,
          listed,
          detailTs,
          resolvedAt,
          recovered,
          true,
          done);
    }

    Member asFinished() {
      return new Member(
          recipe,
          rule,
          severity,
          headline,
          firedAt,
          listed,
          detailTs,
          resolvedAt,
          recovered,
          resolveShown,
          true);
    }

    @JsonIgnore
    boolean firing() {
      return resolvedAt == null;
    }
  }

  static SlackGroup waiting(String id, String channel, Instant openedAt, Instant sendAt) {
    return new SlackGroup(id, channel, openedAt, sendAt, null, null, Map.of(), List.of(), null);
  }

  @JsonIgnore
  boolean posted() {
    return ts != null;
  }

  /** Whether a new alert of the channel joins it: waiting, or posted with members still firing. */
  @JsonIgnore
  boolean open() {
    return !posted() || members.values().stream().anyMatch(Member::firing);
  }

  SlackGroup with(String alertId, Member member) {
    Map<String, Member> m = new LinkedHashMap<>(members);
    m.put(alertId, member);
    return new SlackGroup(id, channel, openedAt, sendAt, ts, lastEditAt, m, unreplied, postingAt);
  }

  /** The group message was posted or edited at {@code at}: it shows every member as they are. */
  SlackGroup shown(String messageTs, Instant at) {
    Map<String, Member> m = new LinkedHashMap<>();
    List<String> reply = new ArrayList<>(unreplied);
    members.forEach(
        (id, member) -> {
          Member listed = member.asListed();
          if (!listed.firing() && !listed.resolveShown()) {
            listed = listed.asShownResolved();
            reply.add(id);
          }
          m.put(id, listed);
        });
    return new SlackGroup(id, channel, openedAt, sendAt, messageTs, at, m, reply, null);
  }

  SlackGroup replied() {
    return new SlackGroup(
        id, channel, openedAt, sendAt, ts, lastEditAt, members, List.of(), postingAt);
  }

  /**
   * About to be posted at {@code at}: recorded before the post, so that after a crash between
   * Slack's acceptance and the record of its {@code ts} the post is looked for, not made twice.
   */
  SlackGroup posting(Instant at) {
    return new SlackGroup(id, channel, openedAt, sendAt, ts, lastEditAt, members, unreplied, at);
  }

  /** The post failed with an answer: it did not reach the channel. */
  SlackGroup notPosting() {
    return new SlackGroup(id, channel, openedAt, sendAt, ts, lastEditAt, members, unreplied, null);
  }

  /** Every member's resolve delivered: the group can be forgotten. */
  @JsonIgnore
  boolean finished() {
    return members.values().stream().allMatch(Member::done);
  }

  /** Whether the message differs from what the members are now (someone joined or recovered). */
  @JsonIgnore
  boolean stale() {
    return members.values().stream()
        .anyMatch(m -> !m.listed() || (!m.firing() && !m.resolveShown()));
  }
}
