package dev.specwatch.model;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/**
 * The whole configuration: one typed tree, loaded and validated by {@link ConfigLoader}. {@code
 * policies} are the speculative recipes the daemon watches; {@code baselines} the deployments
 * without speculation ({@code num_speculative_tokens: 0}) that speed-up is measured against.
 */
public record SpecwatchConfig(
    Path source,
    PrometheusSettings prometheus,
    Evaluation evaluation,
    Path policiesDir,
    List<Policy> policies,
    List<Policy> baselines,
    Path stateDir,
    Server server,
    List<NotifierConfig> notifiers,
    Optional<Digest> digest,
    Optional<URI> grafanaUrl,
    Alerting alerting,
    Optional<Database> database) {

  /** Where the file backend keeps its state when {@code state.dir} is not set. */
  public static final Path DEFAULT_STATE_DIR = Path.of("/var/lib/specwatch");

  /**
   * How long a stopping daemon takes at most ({@code run --shutdown-timeout}, and a daemon closed
   * without a bound), in the config's duration notation: well inside a container runtime's 10 s
   * grace before SIGKILL.
   */
  public static final String DEFAULT_SHUTDOWN_TIMEOUT = "5s";

  public SpecwatchConfig {
    policies = List.copyOf(policies);
    baselines = List.copyOf(baselines);
    notifiers = List.copyOf(notifiers);
  }

  /** How often to evaluate, over which window. */
  public record Evaluation(Duration interval, Duration window) {
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(30);
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);

    public static Evaluation defaults() {
      return new Evaluation(DEFAULT_INTERVAL, DEFAULT_WINDOW);
    }
  }

  /**
   * Alert engine timing.
   *
   * @param idleResolveAfter a firing alert of a recipe without verdict (idle, low traffic, no data)
   *     this long resolves
   * @param datasourceFailureFor failing queries this long fire datasource_unavailable
   */
  public record Alerting(Duration idleResolveAfter, Duration datasourceFailureFor) {
    public static final Duration DEFAULT_IDLE_RESOLVE_AFTER = Duration.ofHours(1);
    public static final Duration DEFAULT_DATASOURCE_FAILURE_FOR = Duration.ofMinutes(2);

    public static Alerting defaults() {
      return new Alerting(DEFAULT_IDLE_RESOLVE_AFTER, DEFAULT_DATASOURCE_FAILURE_FOR);
    }
  }

  /**
   * Every recipe: the speculative ones, then the baselines ({@code speedup_baseline} names one).
   */
  public List<Policy> recipes() {
    return java.util.stream.Stream.concat(policies.stream(), baselines.stream()).toList();
  }

  /** The recipe named {@code name}, speculative or a baseline. */
  public Optional<Policy> recipe(String name) {
    return recipes().stream().filter(p -> p.recipe().equals(name)).findFirst();
  }

  /** Whether {@code other} keeps its state in the same place (directory and database). */
  public boolean sameStateAs(SpecwatchConfig other) {
    return stateDir.equals(other.stateDir) && database.equals(other.database);
  }

  /** The state directory the file backend writes; empty with a database. */
  public Optional<Path> fileStateDir() {
    return database.isPresent() ? Optional.empty() : Optional.of(stateDir);
  }

  /** Where the state is kept, for {@code specwatch validate} (nothing is contacted). */
  public String describeState() {
    return database
        .map(
            d ->
                "postgres "
                    + d.safeUrl()
                    + " ("
                    + d.shards()
                    + " evaluation shards, check-in every "
                    + Durations.format(d.checkinInterval())
                    + "; the database is not contacted)")
        .orElse(stateDir.toString());
  }

  /**
   * {@code state.backend: postgres}: the state in one database shared by every replica, which
   * cluster through Quartz's JDBC job store in the same database.
   *
   * @param shards the evaluation is split into this many jobs (recipes by a hash of their name),
   *     each run by one replica at a time; every replica must use the same number
   * @param checkinInterval how often a replica checks in; one that misses two is taken over
   */
  public record Database(
      String url,
      Optional<String> user,
      Optional<Secret> password,
      int shards,
      Duration checkinInterval) {
    public static final int DEFAULT_SHARDS = 4;
    public static final Duration DEFAULT_CHECKIN_INTERVAL = Duration.ofSeconds(2);

    /** The URL without its parameters (which may hold credentials): for logs and status. */
    public String safeUrl() {
      int q = url.indexOf('?');
      return q < 0 ? url : url.substring(0, q);
    }
  }

  /** specwatch's own HTTP server. */
  /**
   * @param externalUrl where people reach the daemon's web UI (links in notifications)
   */
  public record Server(
      ListenAddress listen,
      Optional<Secret> bearerToken,
      Optional<URI> externalUrl,
      java.util.List<String> allowedHosts) {
    public static final ListenAddress DEFAULT_LISTEN = new ListenAddress("127.0.0.1", 9464);

    public Server(ListenAddress listen, Optional<Secret> bearerToken, Optional<URI> externalUrl) {
      this(listen, bearerToken, externalUrl, java.util.List.of());
    }

    public static Server defaults() {
      return new Server(DEFAULT_LISTEN, Optional.empty(), Optional.empty());
    }

    /**
     * The warning for a listen address other machines can reach while no bearer token is set:
     * anyone on the network may then read every page and the API (writes stay loopback-only).
     */
    public Optional<String> exposureWarning() {
      if (ListenAddress.isLoopbackHost(listen.host()) || bearerToken.isPresent()) {
        return Optional.empty();
      }
      return Optional.of(
          "server.listen "
              + listen
              + " is reachable from other machines and no server.bearer_token is set: anyone"
              + " who can reach it reads every recipe, alert and silence (writes stay"
              + " loopback-only); set server.bearer_token or listen on 127.0.0.1");
    }
  }

  /**
   * The weekly digest.
   *
   * @param templateDir overrides digest.html.mustache / digest.txt.mustache
   * @param maxLateness a digest missed while the daemon was down is sent on start-up within this
   */
  public record Digest(
      String schedule,
      ZoneId timeZone,
      Optional<Email> email,
      Optional<String> slackChannel,
      Optional<Path> templateDir,
      Duration maxLateness) {
    public static final String DEFAULT_SCHEDULE = "0 0 9 ? * MON";
    public static final Duration DEFAULT_MAX_LATENESS = Duration.ofDays(1);
    public static final ZoneId DEFAULT_TIME_ZONE = java.time.ZoneOffset.UTC;

    /** Every key at its default: Mondays 09:00 UTC, no recipients (enough for a dry run). */
    public static Digest defaults() {
      return new Digest(
          DEFAULT_SCHEDULE,
          DEFAULT_TIME_ZONE,
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          DEFAULT_MAX_LATENESS);
    }
  }

  /**
   * @param to receives the whole fleet's digest
   * @param groups each receives a digest of its recipes only
   */
  public record Email(Smtp smtp, String from, List<String> to, List<Group> groups) {
    public Email {
      to = List.copyOf(to);
      groups = List.copyOf(groups);
    }
  }

  /** Recipients for some recipes: names or globs with {@code *}. */
  public record Group(String name, List<String> recipes, List<String> to) {
    public Group {
      recipes = List.copyOf(recipes);
      to = List.copyOf(to);
    }

    public boolean covers(String recipe) {
      return recipes.stream().anyMatch(g -> Globs.matches(g, recipe));
    }
  }

  /** How the SMTP connection is secured. */
  public enum Tls {
    /** Plain connection upgraded with STARTTLS before anything else is sent; required. */
    STARTTLS,
    /** TLS from the first byte (implicit TLS, port 465). */
    SMTPS,
    /** No TLS: only for a relay on loopback or one without authentication. */
    NONE
  }

  /**
   * @param caFile PEM file of the CA(s) that signed the server's certificate; empty: the JVM's
   *     trusted CAs. The certificate is always verified, host name included.
   */
  public record Smtp(
      String host,
      int port,
      Tls tls,
      Optional<String> username,
      Optional<Secret> password,
      Duration timeout,
      Optional<java.nio.file.Path> caFile) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_PORT_SMTPS = 465;
    public static final int DEFAULT_PORT_SUBMISSION = 587;

    /** The connection of the config, without a CA file of its own. */
    public Smtp(
        String host,
        int port,
        Tls tls,
        Optional<String> username,
        Optional<Secret> password,
        Duration timeout) {
      this(host, port, tls, username, password, timeout, Optional.empty());
    }
  }
}
