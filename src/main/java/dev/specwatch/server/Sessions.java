package dev.specwatch.server;

import dev.specwatch.model.Secret;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who may read and write through the web UI and the API.
 *
 * <p>With {@code server.bearer_token}: the API needs {@code Authorization: Bearer <token>}; the UI
 * needs a session cookie, set by {@code /login} after the token was entered (the cookie holds an
 * HMAC of the token under a per-process key, never the token). Without a token: reads are open and
 * API writes are accepted from loopback clients only (the default listen address is 127.0.0.1), and
 * only when nothing says they come from another site: a browser on the operator's machine is a
 * loopback client too, and any page it shows can send a simple POST without a preflight. Such a
 * request carries {@code Sec-Fetch-Site: cross-site} or an {@code Origin} that is not this server;
 * a body must be {@code application/json}, which no page can send cross-site without a preflight
 * the server never answers. {@code curl} and scripts send neither header.
 *
 * <p>Without a token, a write must also name this server in its {@code Host} header: an IP address,
 * {@code localhost}, the host of {@code server.listen} or {@code server.external_url}, or one of
 * {@code server.allowed_hosts} (a reverse proxy's name). A DNS-rebinding page (evil.example
 * resolved to 127.0.0.1) sends its own name as Host and a matching Origin, which the checks above
 * let through.
 *
 * <p>Forms are CSRF-safe: each carries a hidden token (an HMAC of the session, or of "anonymous")
 * that a cross-site page cannot read, checked on every form post, and cookies are {@code
 * SameSite=Strict}, and {@code Secure} when {@code server.external_url} is https. Wrong tokens are
 * throttled ({@link LoginThrottle}).
 */
final class Sessions {
  static final String COOKIE = "specwatch_session";
  private final Optional<Secret> token;
  private final byte[] key = new byte[32];
  private final java.util.Set<String> hosts;
  private final boolean secureCookie;
  private final LoginThrottle throttle = new LoginThrottle();
  private final java.time.Clock clock;

  Sessions(Optional<Secret> token) {
    this(token, java.util.Set.of(), false, java.time.Clock.systemUTC());
  }

  /**
   * @param hosts the names a write's {@code Host} may carry besides IP addresses and localhost
   * @param secureCookie whether people reach the server over https (the cookie is {@code Secure})
   */
  Sessions(
      Optional<Secret> token,
      java.util.Set<String> hosts,
      boolean secureCookie,
      java.time.Clock clock) {
    this.token = token;
    this.clock = clock;
    this.hosts =
        hosts.stream()
            .map(h -> h.toLowerCase(java.util.Locale.ROOT))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());
    this.secureCookie = secureCookie;
    new SecureRandom().nextBytes(key);
  }

  LoginThrottle throttle() {
    return throttle;
  }

  /** Now, for the throttle. */
  java.time.Instant now() {
    return clock.instant();
  }

  /** The {@code Set-Cookie} value of a session. */
  String cookie(String session) {
    return COOKIE
        + "="
        + session
        + "; Path=/; HttpOnly; SameSite=Strict"
        + (secureCookie ? "; Secure" : "");
  }

  /**
   * Why a request's {@code Host} is not this server's, or empty. A request without Host (HTTP/1.0
   * from a script) passes: browsers always send it.
   */
  Optional<String> foreignHost(Request r) {
    String host = r.header("Host");
    if (host == null || host.isBlank()) {
      return Optional.empty();
    }
    String name = host.strip().toLowerCase(java.util.Locale.ROOT);
    if (name.startsWith("[")) {
      return Optional.empty(); // an IPv6 literal
    }
    name = name.replaceFirst(":\\d*$", "");
    if (name.equals("localhost")
        || name.matches("\\d{1,3}(\\.\\d{1,3}){3}")
        || hosts.contains(name)) {
      return Optional.empty();
    }
    return Optional.of(
        "Host "
            + host
            + " is not this server's name (a DNS-rebinding page?); a reverse proxy's name goes in"
            + " server.allowed_hosts");
  }

  boolean tokenConfigured() {
    return token.isPresent();
  }

  /** The API: the bearer token when one is configured. */
  boolean apiAuthorized(Request r) {
    if (token.isEmpty()) {
      return true;
    }
    String header = r.header("Authorization");
    return equal("Bearer " + token.get().reveal(), header == null ? "" : header);
  }

  /**
   * API writes: the bearer token, or, when no token is configured, a loopback client whose request
   * shows no sign of coming from another site ({@link #crossSite}).
   */
  boolean apiWriteAuthorized(Request r) {
    return token.isPresent()
        ? apiAuthorized(r)
        : r.loopback() && crossSite(r).isEmpty() && foreignHost(r).isEmpty();
  }

  /**
   * Why a request looks sent by another site's page, or empty: {@code Sec-Fetch-Site} other than
   * same-origin or none, an {@code Origin} whose host is not the request's {@code Host}, or a body
   * that is not {@code application/json}.
   */
  static Optional<String> crossSite(Request r) {
    String site = r.header("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      return Optional.of("Sec-Fetch-Site: " + site);
    }
    String origin = r.header("Origin");
    String host = r.header("Host");
    if (origin != null) {
      String authority = origin.replaceFirst("^[a-zA-Z][a-zA-Z0-9+.-]*://", "");
      if (origin.equals("null") || host == null || !authority.equalsIgnoreCase(host)) {
        return Optional.of("Origin " + origin + " is not this server");
      }
    }
    String type = r.header("Content-Type");
    if (!r.body().isEmpty()
        && (type == null
            || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json"))) {
      return Optional.of("the body is not application/json");
    }
    return Optional.empty();
  }

  /** Pages: the session cookie when a token is configured. */
  boolean pageAuthorized(Request r) {
    return token.isEmpty() || equal(session(), r.cookies().getOrDefault(COOKIE, ""));
  }

  /** Form posts: a page session (or loopback without a token) and the form's CSRF token. */
  boolean formAuthorized(Request r) {
    boolean who = token.isPresent() ? pageAuthorized(r) : r.loopback() && foreignHost(r).isEmpty();
    return who && equal(csrf(), r.form().getOrDefault("csrf", ""));
  }

  /** Checks a token entered on /login; the session cookie value when it is right. */
  Optional<String> login(String entered) {
    return token.isPresent() && equal(token.get().reveal(), entered)
        ? Optional.of(session())
        : Optional.empty();
  }

  /** The hidden form field's value. */
  String csrf() {
    return hmac("csrf:" + (token.isPresent() ? session() : "anonymous"));
  }

  private String session() {
    return hmac("session:" + token.map(Secret::reveal).orElse(""));
  }

  private String hmac(String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable", e);
    }
  }

  private static boolean equal(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
