package dev.specwatch.notify.slack;

import com.slack.api.methods.MethodsClient;
import com.slack.api.methods.SlackApiException;
import com.slack.api.methods.response.usergroups.users.UsergroupsUsersListResponse;
import dev.specwatch.model.NotifierConfig;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether a button press counts ({@link NotifierConfig.Slack.Presses}): from the message's own
 * channel or a listed one, and, when users or user groups are listed, by one of them. A user
 * group's members are read with {@code usergroups.users.list} (scope {@code usergroups:read}) and
 * kept five minutes; when they cannot be read the press is refused, saying so.
 */
final class SlackPresses {
  static final Duration MEMBERS_KEPT = Duration.ofMinutes(5);

  private record Members(Set<String> users, Instant readAt) {}

  private final NotifierConfig.Slack.Presses policy;
  private final Clock clock;
  private final Map<String, Members> groups = new ConcurrentHashMap<>();

  SlackPresses(NotifierConfig.Slack.Presses policy, Clock clock) {
    this.policy = policy;
    this.clock = clock;
  }

  /**
   * Why {@code user} may not press a button of a message in {@code messageChannel} from {@code
   * channel}, in words for the presser; empty when the press counts.
   */
  Optional<String> refusal(
      String user, String channel, String messageChannel, MethodsClient methods) {
    if (channel == null
        || !(channel.equals(messageChannel) || policy.channels().contains(channel))) {
      return Optional.of(
          "Not allowed: specwatch takes presses only in the alert's own channel"
              + (policy.channels().isEmpty() ? "" : " or the channels configured for it")
              + ".");
    }
    if (!policy.restricted() || policy.users().contains(user)) {
      return Optional.empty();
    }
    for (String group : policy.userGroups()) {
      Optional<Set<String>> members = members(group, methods);
      if (members.isEmpty()) {
        return Optional.of(
            "Not carried out: specwatch could not read the members of user group "
                + group
                + " (the app needs usergroups:read). Try again, or ask an admin.");
      }
      if (members.get().contains(user)) {
        return Optional.empty();
      }
    }
    return Optional.of(
        "Not allowed: only the people configured for this notifier (actions_allowed) may"
            + " acknowledge or silence specwatch alerts.");
  }

  private Optional<Set<String>> members(String group, MethodsClient methods) {
    Instant now = clock.instant();
    Members kept = groups.get(group);
    if (kept != null && kept.readAt().plus(MEMBERS_KEPT).isAfter(now)) {
      return Optional.of(kept.users());
    }
    try {
      UsergroupsUsersListResponse r = methods.usergroupsUsersList(req -> req.usergroup(group));
      if (!r.isOk() || r.getUsers() == null) {
        return Optional.empty();
      }
      Set<String> users = Set.copyOf(r.getUsers());
      groups.put(group, new Members(users, now));
      return Optional.of(users);
    } catch (IOException | SlackApiException e) {
      return Optional.empty();
    }
  }

  /** The listed users and groups, for the log line of a refused press. */
  List<String> listed() {
    return java.util.stream.Stream.concat(policy.users().stream(), policy.userGroups().stream())
        .toList();
  }
}
