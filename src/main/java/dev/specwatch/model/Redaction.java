package dev.specwatch.model;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Scrubs credentials out of text that crosses a boundary: error bodies quoted by an upstream,
 * exception messages, log lines, stored outbox errors and command output.
 *
 * <p>Two passes: every credential this process holds (each {@link Secret}, and the encoded forms it
 * is sent in: Base64 for Basic auth and SMTP AUTH, URL-encoding) is replaced by {@code <redacted>};
 * then shapes that are credentials whatever their value (an Authorization header, user-info in a
 * URL, a Slack webhook path, a Slack token) are replaced too. Values shorter than {@link
 * #MIN_LENGTH} are not registered (they would blank out ordinary words).
 */
public final class Redaction {
  public static final String MASK = "<redacted>";
  static final int MIN_LENGTH = 4;

  private static final Set<String> SECRETS = ConcurrentHashMap.newKeySet();
  private static volatile List<String> longestFirst = List.of();

  private static final Pattern AUTHORIZATION =
      Pattern.compile(
          "(?i)((?:proxy-)?authorization\"?\\s*[:=]\\s*\"?)(?:(basic|bearer)\\s+)?[^\\s\",;}]+");
  private static final Pattern USER_INFO =
      Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/\\s:@]+:[^/\\s@]*@");
  private static final Pattern SLACK_WEBHOOK =
      Pattern.compile("(?i)(hooks\\.slack\\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_-]+");
  private static final Pattern SLACK_TOKEN = Pattern.compile("\\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]+");

  /** A URL query parameter that carries a credential whatever its value ({@code ?apikey=…}). */
  private static final Pattern QUERY_CREDENTIAL =
      Pattern.compile(
          "(?i)([?&](?:api[_-]?key|key|token|access[_-]?token|auth|password|passwd|secret"
              + "|signature|sig)=)[^&\\s\"'#]+");

  private Redaction() {}

  /** Registers a credential and the forms it is encoded in on the wire. */
  public static void register(String secret) {
    if (secret == null || secret.length() < MIN_LENGTH) {
      return;
    }
    boolean added = SECRETS.add(secret);
    added |= addForm(Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8)));
    added |= addForm(URLEncoder.encode(secret, StandardCharsets.UTF_8));
    // A secret URL (a Slack webhook) is quoted back as its path: its path is the secret.
    if (secret.startsWith("http://") || secret.startsWith("https://")) {
      // The path as written (what a server quotes back): everything from the first '/' after
      // the authority, without query or fragment.
      String rest = secret.substring(secret.indexOf("://") + 3);
      int slash = rest.indexOf('/');
      String path = slash < 0 ? "" : rest.substring(slash).replaceFirst("[?#].*$", "");
      if (path.length() >= 8) {
        added |= SECRETS.add(path);
      }
    }
    if (added) {
      reorder();
    }
  }

  /** Registers the user-name/password pairs' encoded forms (HTTP Basic, SMTP AUTH PLAIN). */
  public static void registerLogin(String user, String password) {
    if (password == null || password.length() < MIN_LENGTH) {
      return;
    }
    register(password);
    String u = user == null ? "" : user;
    for (String form :
        List.of(u + ":" + password, "\0" + u + "\0" + password, u + "\0" + password)) {
      SECRETS.add(Base64.getEncoder().encodeToString(form.getBytes(StandardCharsets.UTF_8)));
    }
    reorder();
  }

  /** Longest first, so a secret is replaced before any shorter one inside it. */
  private static void reorder() {
    longestFirst =
        SECRETS.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
  }

  private static boolean addForm(String form) {
    return form.length() >= MIN_LENGTH && SECRETS.add(form);
  }

  /** The text with every credential replaced by {@code <redacted>}; null stays null. */
  public static String scrub(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    for (String secret : longestFirst) {
      if (out.contains(secret)) {
        out = out.replace(secret, MASK);
      }
    }
    out =
        AUTHORIZATION
            .matcher(out)
            .replaceAll(
                m -> {
                  String scheme = m.group(2) == null ? "" : m.group(2) + " ";
                  return java.util.regex.Matcher.quoteReplacement(m.group(1) + scheme + MASK);
                });
    out = USER_INFO.matcher(out).replaceAll("$1" + MASK + "@");
    out = SLACK_WEBHOOK.matcher(out).replaceAll("$1" + MASK);
    out = SLACK_TOKEN.matcher(out).replaceAll(MASK);
    out = QUERY_CREDENTIAL.matcher(out).replaceAll("$1" + MASK);
    return out;
  }

  /**
   * A URL to show (a status page, an API answer): without user-info, and with every query value
   * replaced, since a query may carry a key under any name ({@code ?apikey=}, {@code ?x-token=}).
   */
  public static String url(java.net.URI uri) {
    StringBuilder out = new StringBuilder();
    out.append(uri.getScheme()).append("://");
    if (uri.getRawUserInfo() != null) {
      out.append(MASK).append('@');
    }
    out.append(uri.getHost() == null ? "" : uri.getHost());
    if (uri.getPort() >= 0) {
      out.append(':').append(uri.getPort());
    }
    out.append(uri.getRawPath() == null ? "" : uri.getRawPath());
    if (uri.getRawQuery() != null) {
      out.append('?');
      String[] pairs = uri.getRawQuery().split("&");
      for (int i = 0; i < pairs.length; i++) {
        int eq = pairs[i].indexOf('=');
        out.append(i == 0 ? "" : "&")
            .append(eq < 0 ? pairs[i] : pairs[i].substring(0, eq) + "=" + MASK);
      }
    }
    return out.toString();
  }
}
