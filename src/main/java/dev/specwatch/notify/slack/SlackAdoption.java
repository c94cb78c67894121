package dev.specwatch.notify.slack;

import com.slack.api.methods.MethodsClient;
import com.slack.api.methods.SlackApiException;
import com.slack.api.methods.response.conversations.ConversationsHistoryResponse;
import com.slack.api.methods.response.conversations.ConversationsListResponse;
import com.slack.api.model.Conversation;
import com.slack.api.model.ConversationType;
import com.slack.api.model.Message;
import dev.specwatch.notify.Intent;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes the crash window of a Slack post: every alert message carries {@code metadata} with its
 * intent's id, and before posting an intent whose previous attempt may have reached Slack (the
 * process died, or another replica's lease ran out, between Slack's acceptance and the record of
 * it), the channel's recent history is searched for that id ({@code conversations.history} with
 * {@code include_all_metadata}). A message found is adopted: its {@code ts} is recorded as if the
 * post had just succeeded, and nothing is posted twice. Needs the {@code channels:history} scope
 * ({@code groups:history} for private channels) and, for a channel given by name, {@code
 * channels:read} ({@code groups:read}) to find its id; without them the post goes out as before (a
 * duplicate is possible) and a warning says which scope is missing, once.
 */
final class SlackAdoption {
  private static final Logger logger = LoggerFactory.getLogger(SlackNotifier.class);

  /** The metadata event type of specwatch's alert messages. */
  static final String EVENT_TYPE = "specwatch_alert";

  /** How far before the intent was created its message is looked for. */
  static final Duration LOOK_BACK = Duration.ofMinutes(5);

  private static final Pattern CHANNEL_ID = Pattern.compile("[CGD][A-Z0-9]{6,}");

  private final Map<String, String> channelIds = new ConcurrentHashMap<>();
  private final AtomicBoolean warned = new AtomicBoolean();

  static Message.Metadata metadata(Intent intent) {
    return Message.Metadata.builder()
        .eventType(EVENT_TYPE)
        .eventPayload(Map.of("intent", intent.id(), "alert", intent.transition().alertId()))
        .build();
  }

  /**
   * The {@code (channel id, ts)} of the message that an earlier attempt of {@code intent} posted,
   * if Slack has it; empty when there is none or it cannot be looked for.
   */
  Optional<SlackThreadStore.SlackThread> find(
      MethodsClient methods, String channel, Intent intent, Instant now) {
    return search(
            methods,
            channel,
            intent.createdAt().minus(LOOK_BACK),
            payload -> intent.id().equals(String.valueOf(payload.get("intent"))))
        .map(found -> new SlackThreadStore.SlackThread(found.channel(), found.ts(), now));
  }

  /** The metadata of a group message: its group's key. */
  static Message.Metadata groupMetadata(String groupKey) {
    return Message.Metadata.builder()
        .eventType(EVENT_TYPE)
        .eventPayload(Map.of("group", groupKey))
        .build();
  }

  /** The {@code ts} of group {@code groupKey}'s message, posted from {@code since} on. */
  Optional<String> findGroup(
      MethodsClient methods, String channel, String groupKey, Instant since) {
    return search(
            methods,
            channel,
            since.minus(LOOK_BACK),
            payload -> groupKey.equals(String.valueOf(payload.get("group"))))
        .map(Found::ts);
  }

  private record Found(String channel, String ts) {}

  /** The newest message of the channel since {@code oldest} whose metadata {@code matches}. */
  private Optional<Found> search(
      MethodsClient methods,
      String channel,
      Instant oldest,
      java.util.function.Predicate<Map<String, Object>> matches) {
    try {
      Optional<String> id = channelId(methods, channel);
      if (id.isEmpty()) {
        return Optional.empty();
      }
      String from = seconds(oldest);
      String cursor = null;
      for (int page = 0; page < 5; page++) {
        String next = cursor;
        ConversationsHistoryResponse r =
            methods.conversationsHistory(
                req -> {
                  req.channel(id.get()).oldest(from).limit(200).includeAllMetadata(true);
                  if (next != null) {
                    req.cursor(next);
                  }
                  return req;
                });
        if (!r.isOk()) {
          warn(r.getError(), r.getNeeded());
          return Optional.empty();
        }
        for (Message m : r.getMessages() == null ? List.<Message>of() : r.getMessages()) {
          Message.Metadata md = m.getMetadata();
          if (md != null
              && EVENT_TYPE.equals(md.getEventType())
              && md.getEventPayload() != null
              && matches.test(md.getEventPayload())) {
            return Optional.of(new Found(id.get(), m.getTs()));
          }
        }
        cursor = r.getResponseMetadata() == null ? null : r.getResponseMetadata().getNextCursor();
        if (cursor == null || cursor.isEmpty()) {
          return Optional.empty();
        }
      }
      return Optional.empty();
    } catch (IOException | SlackApiException e) {
      logger.warn(
          "could not look in Slack for a message posted before a crash ({}): posting it;"
              + " a duplicate is possible",
          e.getClass().getSimpleName());
      return Optional.empty();
    }
  }

  private Optional<String> channelId(MethodsClient methods, String channel)
      throws IOException, SlackApiException {
    if (CHANNEL_ID.matcher(channel).matches()) {
      return Optional.of(channel);
    }
    String known = channelIds.get(channel);
    if (known != null) {
      return Optional.of(known);
    }
    String name = channel.startsWith("#") ? channel.substring(1) : channel;
    String cursor = null;
    for (int page = 0; page < 10; page++) {
      String from = cursor;
      ConversationsListResponse r =
          methods.conversationsList(
              req -> {
                req.excludeArchived(true)
                    .limit(1000)
                    .types(
                        List.of(ConversationType.PUBLIC_CHANNEL, ConversationType.PRIVATE_CHANNEL));
                if (from != null) {
                  req.cursor(from);
                }
                return req;
              });
      if (!r.isOk()) {
        warn(r.getError(), r.getNeeded());
        return Optional.empty();
      }
      for (Conversation c : r.getChannels() == null ? List.<Conversation>of() : r.getChannels()) {
        if (name.equals(c.getName())) {
          channelIds.put(channel, c.getId());
          return Optional.of(c.getId());
        }
      }
      cursor = r.getResponseMetadata() == null ? null : r.getResponseMetadata().getNextCursor();
      if (cursor == null || cursor.isEmpty()) {
        break;
      }
    }
    return Optional.empty();
  }

  private void warn(String error, String needed) {
    if (warned.compareAndSet(false, true)) {
      logger.warn(
          "cannot look in Slack for a message posted before a crash ({}{}): such a message is"
              + " posted again, a duplicate is possible. Give the bot token the channels:history"
              + " and channels:read scopes (groups:history, groups:read for private channels)",
          error,
          needed == null ? "" : ", needs " + needed);
    }
  }

  private static String seconds(Instant at) {
    return at.getEpochSecond()
        + "."
        + String.format(java.util.Locale.ROOT, "%06d", at.getNano() / 1000);
  }
}
