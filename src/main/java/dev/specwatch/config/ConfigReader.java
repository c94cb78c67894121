package dev.specwatch.config;

import dev.specwatch.model.ListenAddress;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.Secret;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.TimeInterval;
import dev.specwatch.yaml.MapReader;
import dev.specwatch.yaml.Problems;
import dev.specwatch.yaml.YamlNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.quartz.CronExpression;

/** Reads the config file's sections (everything but the policies and the notifiers). */
final class ConfigReader {
  private final NotifierReader notifiers = new NotifierReader();
  private final PolicyReader policies;

  ConfigReader(PolicyReader policies) {
    this.policies = policies;
  }

  SpecwatchConfig read(MapReader r, Path file, Problems problems) {
    PrometheusSettings prometheus = r.map("prometheus").map(this::readPrometheus).orElse(null);
    if (!r.has("prometheus")) {
      r.error("prometheus", "is required: at least prometheus.url");
    }
    SpecwatchConfig.Evaluation evaluation =
        r.map("evaluation").map(this::readEvaluation).orElse(SpecwatchConfig.Evaluation.defaults());
    Path policiesDir = r.baseDir().resolve(r.string("policies", "alerts")).normalize();
    Path[] stateDir = {SpecwatchConfig.DEFAULT_STATE_DIR};
    Optional<SpecwatchConfig.Database> database =
        r.map("state")
            .flatMap(
                s -> {
                  Optional<SpecwatchConfig.Database> db = readState(s, stateDir);
                  s.finish();
                  return db;
                });
    SpecwatchConfig.Server server =
        r.map("server").map(this::readServer).orElse(SpecwatchConfig.Server.defaults());
    List<NotifierConfig> notifiers = this.notifiers.read(r);
    Optional<SpecwatchConfig.Digest> digest = r.map("digest").map(this::readDigest);
    SpecwatchConfig.Alerting alerting =
        r.map("alerting")
            .map(
                a -> {
                  Duration idle =
                      a.duration(
                          "idle_resolve_after",
                          SpecwatchConfig.Alerting.DEFAULT_IDLE_RESOLVE_AFTER);
                  Duration datasource =
                      a.duration(
                          "datasource_failure_for",
                          SpecwatchConfig.Alerting.DEFAULT_DATASOURCE_FAILURE_FOR);
                  a.finish();
                  return new SpecwatchConfig.Alerting(idle, datasource);
                })
            .orElse(SpecwatchConfig.Alerting.defaults());
    Optional<URI> grafana =
        r.map("grafana")
            .flatMap(
                g -> {
                  // An empty url (e.g. ${GRAFANA_URL:-} in the container's config) is no Grafana.
                  Optional<URI> url =
                      g.optionalString("url").filter(u -> !u.isBlank()).isEmpty()
                          ? Optional.empty()
                          : Converters.url(g, "url", true);
                  g.finish();
                  return url;
                });
    Map<String, List<TimeInterval>> named = MaintenanceReader.named(r);
    r.finish();

    List<Policy> all = this.policies.load(policiesDir, r, problems, named);
    if (!problems.isEmpty()) {
      return null;
    }
    return new SpecwatchConfig(
        file,
        prometheus,
        evaluation,
        policiesDir,
        all.stream().filter(Policy::speculative).toList(),
        all.stream().filter(p -> !p.speculative()).toList(),
        stateDir[0],
        server,
        notifiers,
        digest,
        grafana,
        alerting,
        database);
  }

  /** {@code state}: a directory (backend file, the default) or a PostgreSQL database. */
  private Optional<SpecwatchConfig.Database> readState(MapReader s, Path[] dir) {
    String backend = s.string("backend", "file");
    if (backend.equals("file")) {
      dir[0] =
          s.optionalString("dir")
              .map(s.baseDir()::resolve)
              .orElse(SpecwatchConfig.DEFAULT_STATE_DIR);
      for (String key : List.of("url", "user", "password", "password_file", "shards")) {
        if (s.has(key)) {
          s.keyError(key, "is a setting of backend: postgres (this state is backend: file)");
        }
      }
      return Optional.empty();
    }
    if (!backend.equals("postgres")) {
      s.error("backend", "must be file or postgres, not '" + backend + "'");
      return Optional.empty();
    }
    if (s.has("dir")) {
      s.keyError("dir", "is a setting of backend: file (backend: postgres keeps no files)");
    }
    String url = s.requiredString("url");
    if (!url.isEmpty() && !url.startsWith("jdbc:postgresql://")) {
      s.error(
          "url", "must be a PostgreSQL JDBC URL, e.g. jdbc:postgresql://127.0.0.1:5432/specwatch");
    }
    Optional<String> user = s.optionalString("user");
    Optional<Secret> password = s.secret("password").map(Secret::of);
    int shards = s.integer("shards", SpecwatchConfig.Database.DEFAULT_SHARDS, 1, 256);
    Duration checkin =
        s.duration("checkin_interval", SpecwatchConfig.Database.DEFAULT_CHECKIN_INTERVAL);
    if (checkin.compareTo(Duration.ofMillis(500)) < 0) {
      s.error("checkin_interval", "must be at least 500ms");
    }
    return url.isEmpty()
        ? Optional.empty()
        : Optional.of(new SpecwatchConfig.Database(url, user, password, shards, checkin));
  }

  private PrometheusSettings readPrometheus(MapReader p) {
    Optional<URI> url = Converters.url(p, "url", true);
    if (!p.has("url")) {
      p.error("url", "is required, e.g. http://127.0.0.1:9090");
    }
    Duration timeout = p.duration("timeout", PrometheusSettings.DEFAULT_TIMEOUT);
    if (timeout.isZero()) {
      p.error("timeout", "must be longer than 0s");
    }
    Optional<Secret> bearer = p.secret("bearer_token").map(Secret::of);
    Optional<PrometheusSettings.BasicAuth> basic =
        p.map("basic_auth")
            .flatMap(
                b -> {
                  String user = b.requiredString("username");
                  Optional<Secret> password = b.secret("password").map(Secret::of);
                  if (password.isEmpty() && !b.has("password") && !b.has("password_file")) {
                    b.error("password", "is required (or password_file)");
                  }
                  b.finish();
                  return password.map(pw -> new PrometheusSettings.BasicAuth(user, pw));
                });
    if (bearer.isPresent() && basic.isPresent()) {
      p.error("basic_auth", "set either bearer_token or basic_auth, not both");
    }
    Map<String, String> headers = p.stringMap("headers");
    Optional<Path> ca = Optional.empty();
    boolean insecure = false;
    Optional<MapReader> tls = p.map("tls");
    if (tls.isPresent()) {
      MapReader t = tls.get();
      ca = t.optionalString("ca_file").map(f -> t.baseDir().resolve(f));
      if (ca.isPresent() && !Files.isReadable(ca.get())) {
        t.error("ca_file", "cannot read " + ca.get());
      }
      insecure = t.bool("insecure_skip_verify", false);
      t.finish();
    }
    int retries = p.integer("max_retries", PrometheusSettings.DEFAULT_MAX_RETRIES, 0, 10);
    long maxBytes =
        Converters.size(p, "max_response_size", PrometheusSettings.DEFAULT_MAX_RESPONSE_BYTES);
    p.finish();
    if (url.isEmpty() || timeout.isZero()) {
      return null;
    }
    return new PrometheusSettings(
        url.get(), timeout, bearer, basic, headers, ca, insecure, retries, maxBytes);
  }

  private SpecwatchConfig.Evaluation readEvaluation(MapReader e) {
    Duration interval = e.duration("interval", SpecwatchConfig.Evaluation.DEFAULT_INTERVAL);
    Duration window = e.duration("window", SpecwatchConfig.Evaluation.DEFAULT_WINDOW);
    if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
      e.error("interval", "must be at least 1s");
    }
    if (window.compareTo(Duration.ofSeconds(10)) < 0) {
      e.error("window", "must be at least 10s (a rate needs two scrapes in the window)");
    }
    e.finish();
    return new SpecwatchConfig.Evaluation(interval, window);
  }

  private SpecwatchConfig.Server readServer(MapReader s) {
    String text = s.string("listen", SpecwatchConfig.Server.DEFAULT_LISTEN.toString());
    Optional<ListenAddress> listen = ListenAddress.parse(text);
    if (listen.isEmpty()) {
      s.error("listen", "expected HOST:PORT with a port from 0 to 65535, e.g. 127.0.0.1:9464");
    }
    Optional<Secret> token = s.secret("bearer_token").map(Secret::of);
    Optional<java.net.URI> external = Converters.url(s, "external_url", false);
    List<String> hosts =
        s.list(
            "allowed_hosts",
            (node, path) -> {
              if (node instanceof YamlNode.Scalar h && h.text().matches("[A-Za-z0-9.-]+")) {
                return Optional.of(h.text());
              }
              s.problems()
                  .add(
                      node.location(),
                      path,
                      "expected a host name without scheme or port, e.g. specwatch.example.com");
              return Optional.empty();
            });
    s.finish();
    return new SpecwatchConfig.Server(
        listen.orElse(SpecwatchConfig.Server.DEFAULT_LISTEN), token, external, hosts);
  }

  @SuppressWarnings("JavaUtilDate") // Quartz's CronExpression speaks java.util.Date
  private static boolean neverFires(String schedule) {
    try {
      return new CronExpression(schedule).getNextValidTimeAfter(new java.util.Date()) == null;
    } catch (java.text.ParseException e) {
      return false; // reported as invalid above
    }
  }

  private SpecwatchConfig.Digest readDigest(MapReader d) {
    String schedule = d.string("schedule", SpecwatchConfig.Digest.DEFAULT_SCHEDULE);
    Optional<String> outOfRange = Converters.cronOutOfRange(schedule);
    if (!CronExpression.isValidExpression(schedule)) {
      d.error(
          "schedule",
          "not a valid Quartz cron expression (seconds minutes hours"
              + " day-of-month month day-of-week), e.g. \"0 0 9 ? * MON\"");
    } else if (outOfRange.isPresent()) {
      // Quartz accepts some of these and silently runs at another time.
      d.error("schedule", outOfRange.get());
    } else if (neverFires(schedule)) {
      // e.g. "0 0 9 30 2 ?" (30 February): Quartz accepts it, then refuses to schedule it.
      d.error(
          "schedule",
          "\""
              + schedule
              + "\" never fires (no such day, or only in the past): no digest would go out");
    }
    ZoneId zone = SpecwatchConfig.Digest.DEFAULT_TIME_ZONE;
    Optional<String> zoneName = d.optionalString("time_zone");
    if (zoneName.isPresent()) {
      try {
        zone = ZoneId.of(zoneName.get());
      } catch (DateTimeException e) {
        d.error("time_zone", "unknown time zone '" + zoneName.get() + "', e.g. Europe/Berlin");
      }
    }
    Optional<SpecwatchConfig.Email> email = d.map("email").flatMap(this::readEmail);
    Optional<String> slack = d.optionalString("slack_channel");
    Optional<Path> templates = d.optionalString("template_dir").map(t -> d.baseDir().resolve(t));
    if (templates.isPresent() && !Files.isDirectory(templates.get())) {
      d.error("template_dir", "directory " + templates.get() + " does not exist");
    }
    Duration lateness = d.duration("max_lateness", SpecwatchConfig.Digest.DEFAULT_MAX_LATENESS);
    d.finish();
    return new SpecwatchConfig.Digest(schedule, zone, email, slack, templates, lateness);
  }

  private Optional<SpecwatchConfig.Email> readEmail(MapReader e) {
    Optional<SpecwatchConfig.Smtp> smtp =
        e.map("smtp")
            .map(
                s -> {
                  String host = s.requiredString("host");
                  SpecwatchConfig.Tls tls = Converters.smtpTls(s);
                  int port =
                      s.integer(
                          "port",
                          tls == SpecwatchConfig.Tls.SMTPS
                              ? SpecwatchConfig.Smtp.DEFAULT_PORT_SMTPS
                              : SpecwatchConfig.Smtp.DEFAULT_PORT_SUBMISSION,
                          1,
                          65535);
                  Optional<String> user = s.optionalString("username");
                  Optional<Secret> password = s.secret("password").map(Secret::of);
                  Duration timeout = s.duration("timeout", SpecwatchConfig.Smtp.DEFAULT_TIMEOUT);
                  Optional<Path> ca = s.optionalString("ca_file").map(f -> s.baseDir().resolve(f));
                  if (ca.isPresent() && !Files.isReadable(ca.get())) {
                    s.error("ca_file", "cannot read " + ca.get());
                  } else if (ca.isPresent() && tls == SpecwatchConfig.Tls.NONE) {
                    s.error("ca_file", "is for tls: starttls or smtps; tls is none");
                  }
                  if (tls == SpecwatchConfig.Tls.NONE
                      && (user.isPresent() || s.has("password") || s.has("password_file"))
                      && !ListenAddress.isLoopbackHost(host)) {
                    s.error(
                        "tls",
                        "none would send the SMTP password in clear to "
                            + host
                            + "; use starttls (port 587) or smtps (port 465)");
                  }
                  s.finish();
                  return new SpecwatchConfig.Smtp(host, port, tls, user, password, timeout, ca);
                });
    if (!e.has("smtp")) {
      e.error("smtp", "is required: host, port, tls");
    }
    String from = e.requiredString("from");
    List<String> to =
        e.list(
            "to",
            (node, path) ->
                node instanceof YamlNode.Scalar s ? Optional.of(s.text()) : Optional.empty());
    if (to.isEmpty()) {
      e.error("to", "list at least one recipient");
    }
    List<SpecwatchConfig.Group> groups =
        e.list(
            "groups",
            (node, path) ->
                MapReader.of(node, path, e.problems(), e.baseDir())
                    .flatMap(
                        g -> {
                          String name = g.requiredString("name");
                          List<String> recipes =
                              g.list(
                                  "recipes",
                                  (n, p) ->
                                      n instanceof YamlNode.Scalar sc
                                          ? Optional.of(sc.text())
                                          : Optional.empty());
                          List<String> groupTo =
                              g.list(
                                  "to",
                                  (n, p) ->
                                      n instanceof YamlNode.Scalar sc
                                          ? Optional.of(sc.text())
                                          : Optional.empty());
                          if (recipes.isEmpty()) {
                            g.error(
                                "recipes", "list at least one recipe name or glob, e.g. \"qwen*\"");
                          }
                          if (groupTo.isEmpty()) {
                            g.error("to", "list at least one recipient");
                          }
                          g.finish();
                          return Optional.of(new SpecwatchConfig.Group(name, recipes, groupTo));
                        }));
    e.finish();
    return smtp.map(s -> new SpecwatchConfig.Email(s, from, to, groups));
  }
}
