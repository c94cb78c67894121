package dev.specwatch.config;

import dev.specwatch.model.LabelMatcher;
import dev.specwatch.model.Location;
import dev.specwatch.model.NotifierConfig;
import dev.specwatch.model.Policy;
import dev.specwatch.model.PrometheusSettings;
import dev.specwatch.model.Secret;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.model.Threshold;
import dev.specwatch.signals.EngineProfile;
import dev.specwatch.yaml.MapReader;
import dev.specwatch.yaml.Problems;
import dev.specwatch.yaml.YamlNode;
import dev.specwatch.yaml.YamlParser;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.quartz.CronExpression;

/**
 * Loads the config file and every policy file it points to, in one pass that collects every problem
 * (file:line:col, key path, message) before failing. Secrets are read but never quoted.
 */
public final class ConfigLoader {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KB|KiB|MB|MiB|GB|GiB)?");
  private static final Set<String> SEVERITIES = Set.of("info", "warning", "critical");
  private static final Set<String> SMTP_TLS = Set.of("starttls", "smtps", "none");

  private final Function<String, String> environment;

  public ConfigLoader(Function<String, String> environment) {
    this.environment = environment;
  }

  public static ConfigLoader fromSystemEnvironment() {
    return new ConfigLoader(System::getenv);
  }

  /**
   * @throws InvalidInputException with every problem found
   */
  public SpecwatchConfig load(Path file) {
    Problems problems = new Problems();
    Optional<MapReader> root = readFile(file, problems);
    SpecwatchConfig config = root.map(r -> readConfig(r, file, problems)).orElse(null);
    problems.throwIfAny();
    return config;
  }

  private Optional<MapReader> readFile(Path file, Problems problems) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      problems.add(new Location(file.toString(), 1, 1), "", "file not found");
      return Optional.empty();
    } catch (IOException e) {
      problems.add(new Location(file.toString(), 1, 1), "", "cannot read: " + e.getMessage());
      return Optional.empty();
    }
    Path dir = file.toAbsolutePath().getParent();
    return new YamlParser(file.toString(), problems, environment)
        .parse(text)
        .flatMap(node -> MapReader.of(node, "", problems, dir));
  }

  private SpecwatchConfig readConfig(MapReader r, Path file, Problems problems) {
    PrometheusSettings prometheus = r.map("prometheus").map(this::readPrometheus).orElse(null);
    if (!r.has("prometheus")) {
      r.error("prometheus", "is required: at least prometheus.url");
    }
    SpecwatchConfig.Evaluation evaluation =
        r.map("evaluation")
            .map(this::readEvaluation)
            .orElse(
                new SpecwatchConfig.Evaluation(
                    SpecwatchConfig.Evaluation.DEFAULT_INTERVAL,
                    SpecwatchConfig.Evaluation.DEFAULT_WINDOW));
    Path policiesDir = r.baseDir().resolve(r.string("policies", "alerts")).normalize();
    Path stateDir =
        r.map("state")
            .map(
                s -> {
                  Path dir = s.baseDir().resolve(s.string("dir", "/var/lib/specwatch"));
                  s.finish();
                  return dir;
                })
            .orElse(Path.of("/var/lib/specwatch"));
    SpecwatchConfig.Server server =
        r.map("server")
            .map(this::readServer)
            .orElse(
                new SpecwatchConfig.Server(
                    SpecwatchConfig.Server.DEFAULT_LISTEN, Optional.empty()));
    List<NotifierConfig> notifiers = readNotifiers(r);
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
                  Optional<URI> url = url(g, "url", true);
                  g.finish();
                  return url;
                });
    r.finish();

    List<Policy> policies = loadPolicies(policiesDir, r, problems);
    if (!problems.isEmpty()) {
      return null;
    }
    return new SpecwatchConfig(
        file,
        prometheus,
        evaluation,
        policiesDir,
        policies,
        stateDir,
        server,
        notifiers,
        digest,
        grafana,
        alerting);
  }

  private PrometheusSettings readPrometheus(MapReader p) {
    Optional<URI> url = url(p, "url", true);
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
    long maxBytes = size(p, "max_response_size", PrometheusSettings.DEFAULT_MAX_RESPONSE_BYTES);
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
    String listen = s.string("listen", SpecwatchConfig.Server.DEFAULT_LISTEN);
    if (!listen.matches("^(\\[[0-9a-fA-F:.]+]|[^:\\s]*):\\d{1,5}$")) {
      s.error("listen", "expected HOST:PORT, e.g. 127.0.0.1:9464");
    }
    Optional<Secret> token = s.secret("bearer_token").map(Secret::of);
    s.finish();
    return new SpecwatchConfig.Server(listen, token);
  }

  private List<NotifierConfig> readNotifiers(MapReader r) {
    List<NotifierConfig> notifiers =
        r.list(
            "notifiers",
            (node, path) ->
                MapReader.of(node, path, r.problems(), r.baseDir()).flatMap(this::readNotifier));
    Map<String, Integer> names = new HashMap<>();
    for (int i = 0; i < notifiers.size(); i++) {
      Integer first = names.putIfAbsent(notifiers.get(i).name(), i);
      if (first != null) {
        r.error(
            "notifiers",
            "two notifiers are named '"
                + notifiers.get(i).name()
                + "': give each a distinct name:");
      }
    }
    return notifiers;
  }

  private Optional<NotifierConfig> readNotifier(MapReader n) {
    String type = n.requiredString("type");
    String name = n.string("name", type);
    Optional<NotifierConfig> out;
    switch (type) {
      case "slack" -> {
        Optional<Secret> token = n.secret("token").map(Secret::of);
        Optional<Secret> webhook = n.secret("webhook_url").map(Secret::of);
        Optional<String> channel = n.optionalString("channel");
        Optional<URI> api = url(n, "api_url", false);
        if (token.isPresent() == webhook.isPresent() && !hasAny(n, "token", "webhook_url")) {
          n.error("token", "set token (bot token, xoxb-...) or webhook_url");
        } else if (token.isPresent() && webhook.isPresent()) {
          n.error("webhook_url", "set either token or webhook_url, not both");
        }
        if (token.isPresent() && channel.isEmpty()) {
          n.error("channel", "is required with a bot token (e.g. \"#mtp-alerts\")");
        }
        Duration repeat =
            n.duration("repeat_interval", NotifierConfig.Slack.DEFAULT_REPEAT_INTERVAL);
        out = Optional.of(new NotifierConfig.Slack(name, token, webhook, channel, api, repeat));
      }
      case "log" -> out = Optional.of(new NotifierConfig.Log(name));
      case "grafana" -> {
        Optional<URI> url = url(n, "url", true);
        if (!n.has("url")) {
          n.error("url", "is required, e.g. http://127.0.0.1:3000");
        }
        Optional<Secret> token = n.secret("token").map(Secret::of);
        if (token.isEmpty() && !hasAny(n, "token")) {
          n.error("token", "is required: a Grafana service-account token (or token_file)");
        }
        String uid = n.string("dashboard_uid", "vllm-spec-decode");
        out = url.flatMap(u -> token.map(t -> new NotifierConfig.Grafana(name, u, t, uid)));
      }
      case "webhook" -> {
        Optional<URI> url = url(n, "url", true);
        if (!n.has("url")) {
          n.error("url", "is required");
        }
        Optional<Secret> secret = n.secret("secret").map(Secret::of);
        Map<String, String> headers = n.stringMap("headers");
        out = url.map(u -> new NotifierConfig.Webhook(name, u, secret, headers));
      }
      case "alertmanager" -> {
        Optional<URI> url = url(n, "url", true);
        if (!n.has("url")) {
          n.error("url", "is required, e.g. http://127.0.0.1:9093");
        }
        out = url.map(u -> new NotifierConfig.Alertmanager(name, u));
      }
      default -> {
        if (!type.isEmpty()) {
          String hint =
              MapReader.closest(type, Set.of("slack", "log", "webhook", "alertmanager", "grafana"))
                  .map(h -> " (did you mean '" + h + "'?)")
                  .orElse("");
          n.error(
              "type",
              "unknown notifier type '"
                  + type
                  + "'"
                  + hint
                  + "; one of slack, log, webhook, alertmanager, grafana");
        }
        n.finish();
        return Optional.empty();
      }
    }
    n.finish();
    return out;
  }

  private static boolean hasAny(MapReader n, String... keys) {
    for (String key : keys) {
      if (n.has(key) || n.has(key + "_file")) {
        return true;
      }
    }
    return false;
  }

  private SpecwatchConfig.Digest readDigest(MapReader d) {
    String schedule = d.string("schedule", SpecwatchConfig.Digest.DEFAULT_SCHEDULE);
    if (!CronExpression.isValidExpression(schedule)) {
      d.error(
          "schedule",
          "not a valid Quartz cron expression (seconds minutes hours"
              + " day-of-month month day-of-week), e.g. \"0 0 9 ? * MON\"");
    }
    ZoneId zone = ZoneId.of("UTC");
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
                  String tls = s.string("tls", "starttls");
                  if (!SMTP_TLS.contains(tls)) {
                    s.error("tls", "one of starttls, smtps, none");
                  }
                  int port = s.integer("port", tls.equals("smtps") ? 465 : 587, 1, 65535);
                  Optional<String> user = s.optionalString("username");
                  Optional<Secret> password = s.secret("password").map(Secret::of);
                  Duration timeout = s.duration("timeout", Duration.ofSeconds(30));
                  s.finish();
                  return new SpecwatchConfig.Smtp(host, port, tls, user, password, timeout);
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

  private static Optional<URI> url(MapReader r, String key, boolean httpOnly) {
    Optional<String> text = r.optionalString(key);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(text.get().strip());
      if (uri.getScheme() == null
          || uri.getHost() == null
          || (httpOnly && !uri.getScheme().matches("https?"))) {
        r.error(key, "expected an http(s) URL with a host, e.g. http://127.0.0.1:9090");
        return Optional.empty();
      }
      if (uri.getUserInfo() != null) {
        // Never echo the URL: it carries credentials.
        r.error(key, "must not contain credentials; use basic_auth or bearer_token");
        return Optional.empty();
      }
      return Optional.of(uri);
    } catch (URISyntaxException e) {
      r.error(key, "not a valid URL");
      return Optional.empty();
    }
  }

  private static long size(MapReader r, String key, long defaultValue) {
    Optional<String> text = r.optionalString(key);
    if (text.isEmpty()) {
      return defaultValue;
    }
    Matcher m = SIZE.matcher(text.get().strip());
    if (!m.matches()) {
      r.error(key, "expected a size like 64MiB, 10MB or 1048576, got '" + text.get() + "'");
      return defaultValue;
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2);
    long factor =
        switch (unit) {
          case "KB" -> 1000L;
          case "KiB" -> 1024L;
          case "MB" -> 1000L * 1000;
          case "MiB" -> 1024L * 1024;
          case "GB" -> 1000L * 1000 * 1000;
          case "GiB" -> 1024L * 1024 * 1024;
          default -> 1L;
        };
    if (n < 1) {
      r.error(key, "must be positive");
      return defaultValue;
    }
    return n * factor;
  }

  // ---- policies ----

  private List<Policy> loadPolicies(Path dir, MapReader config, Problems problems) {
    if (!Files.isDirectory(dir)) {
      config.error("policies", "directory " + dir + " does not exist");
      return List.of();
    }
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*.{yaml,yml}")) {
      stream.forEach(files::add);
    } catch (IOException e) {
      config.error("policies", "cannot list " + dir + ": " + e.getMessage());
      return List.of();
    }
    files.sort(null);
    List<Policy> policies = new ArrayList<>();
    Map<String, Location> byName = new LinkedHashMap<>();
    Map<String, Policy> byIdentity = new HashMap<>();
    for (Path file : files) {
      Optional<MapReader> reader = readFile(file, problems);
      if (reader.isEmpty()) {
        continue;
      }
      MapReader r = reader.get();
      Optional<Policy> policy = readPolicy(r, file);
      // Names are checked even for invalid policies, so every duplicate shows in one run.
      String name = r.string("recipe", "");
      Location first = name.isEmpty() ? null : byName.putIfAbsent(name, r.locationOf("recipe"));
      if (first != null) {
        r.error("recipe", "recipe '" + name + "' is already defined at " + first);
        continue;
      }
      if (policy.isEmpty()) {
        continue;
      }
      Policy p = policy.get();
      String identity = p.engine() + p.match();
      Policy same = byIdentity.putIfAbsent(identity, p);
      if (same != null) {
        problems.add(
            p.source(),
            "match",
            "selects the same series as recipe '" + same.recipe() + "' (" + same.source() + ")");
        continue;
      }
      policies.add(p);
    }
    return policies;
  }

  private Optional<Policy> readPolicy(MapReader r, Path file) {
    int problemsBefore = r.problemCount();
    String recipe = r.requiredString("recipe");
    String engine = r.string("engine", "vllm");
    EngineProfile profile = null;
    try {
      profile = EngineProfile.forName(engine);
    } catch (IllegalArgumentException e) {
      r.error("engine", "unknown engine '" + engine + "'; one of vllm, sglang");
    }
    TreeMap<String, String> match = new TreeMap<>();
    Optional<MapReader> m = r.map("match");
    if (m.isEmpty() && !r.has("match")) {
      r.error(
          "match",
          "is required: the labels that select this recipe's series,"
              + " e.g. {job: vllm, model_name: unsloth/Qwen3.8-27B-NVFP4}");
    }
    m.ifPresent(
        mr -> {
          for (String label : mr.keys()) {
            Optional<String> value = mr.optionalString(label);
            if (!LabelMatcher.isValidLabelName(label)) {
              mr.keyError(
                  label,
                  "'"
                      + label
                      + "' is not a valid Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not __*)");
            } else if (value.isEmpty() || value.get().isEmpty()) {
              mr.error(
                  label, "needs a value (an empty value would match series without the label)");
            } else {
              match.put(label, value.get());
            }
          }
          if (mr.keys().isEmpty()) {
            mr.error("", "list at least one label");
          }
        });
    int k = r.integer("num_speculative_tokens", 0, 1, 64);
    if (!r.has("num_speculative_tokens")) {
      r.error("num_speculative_tokens", "is required (the k of --speculative-config)");
    }
    long minDrafts = r.integer("min_drafts", (int) Policy.DEFAULT_MIN_DRAFTS, 0, Integer.MAX_VALUE);
    Duration forDuration = r.duration("for", Policy.DEFAULT_FOR);
    Duration keepFiring = r.duration("keep_firing_for", Policy.DEFAULT_KEEP_FIRING_FOR);
    Policy.Thresholds thresholds =
        r.map("thresholds")
            .map(t -> readThresholds(t, Math.max(k, 1), engine))
            .orElse(Policy.Thresholds.none());
    Policy.Notify notify =
        r.map("notify")
            .map(
                n -> {
                  Optional<String> channel = n.optionalString("slack_channel");
                  String severity = n.string("severity", Policy.Notify.DEFAULT_SEVERITY);
                  if (!SEVERITIES.contains(severity)) {
                    n.error("severity", "one of info, warning, critical");
                  }
                  n.finish();
                  return new Policy.Notify(channel, severity);
                })
            .orElse(new Policy.Notify(Optional.empty(), Policy.Notify.DEFAULT_SEVERITY));
    Map<String, String> labels = r.stringMap("labels");
    Optional<String> runbook = r.optionalString("runbook_url");
    Optional<Policy.Slo> slo =
        r.map("slo")
            .flatMap(
                o -> {
                  OptionalDouble objective = o.optionalNumber("objective", 0.5, 0.99999);
                  if (!o.has("objective")) {
                    o.error(
                        "objective",
                        "is required, e.g. 0.99 (99 % of active slices meet the target)");
                  }
                  OptionalDouble target = o.optionalNumber("acceptance_rate", 0, 1);
                  if (!o.has("acceptance_rate")) {
                    o.error(
                        "acceptance_rate",
                        "is required: the acceptance a slice must reach, e.g. 0.45");
                  }
                  Duration slice = o.duration("slice", Policy.Slo.DEFAULT_SLICE);
                  Duration period = o.duration("period", Policy.Slo.DEFAULT_PERIOD);
                  if (period.compareTo(Duration.ofDays(1)) < 0
                      || slice.compareTo(Duration.ofMinutes(1)) < 0) {
                    o.error("period", "needs period >= 1d and slice >= 1m");
                  }
                  o.finish();
                  return objective.isPresent() && target.isPresent()
                      ? Optional.of(
                          new Policy.Slo(
                              objective.getAsDouble(), target.getAsDouble(), slice, period))
                      : Optional.empty();
                });
    List<Policy.Maintenance> maintenance =
        r.list(
            "maintenance",
            (node, path) ->
                MapReader.of(node, path, r.problems(), r.baseDir())
                    .flatMap(ConfigLoader::maintenance));
    r.finish();
    if (r.problemCount() > problemsBefore
        || profile == null
        || match.isEmpty()
        || k < 1
        || recipe.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        new Policy(
            recipe,
            engine,
            match,
            k,
            minDrafts,
            forDuration,
            keepFiring,
            thresholds,
            notify,
            labels,
            runbook,
            maintenance,
            slo,
            r.location()));
  }

  private Policy.Thresholds readThresholds(MapReader t, int k, String engine) {
    Optional<Threshold> acceptance = t.map("acceptance_rate").flatMap(a -> threshold(a, 0, 1));
    Optional<Threshold> meanLength =
        t.map("mean_accepted_length").flatMap(a -> threshold(a, 1, k + 1));
    TreeMap<Integer, Threshold> positions = new TreeMap<>();
    t.map("position_acceptance")
        .ifPresent(
            p -> {
              if (engine.equals("sglang")) {
                p.error("", "SGLang exports no per-position counters; remove position_acceptance");
              }
              for (String key : new TreeSet<>(p.keys())) {
                int position;
                try {
                  position = Integer.parseInt(key);
                } catch (NumberFormatException e) {
                  p.keyError(key, "positions are 0-based numbers, e.g. \"0\"");
                  continue;
                }
                if (position < 0 || position >= k) {
                  p.keyError(
                      key,
                      "position "
                          + position
                          + " does not exist with num_speculative_tokens "
                          + k
                          + " (positions 0.."
                          + (k - 1)
                          + ")");
                  continue;
                }
                p.map(key)
                    .flatMap(a -> threshold(a, 0, 1))
                    .ifPresent(th -> positions.put(position, th));
              }
            });
    Optional<Policy.Regression> regression =
        t.map("regression")
            .flatMap(
                g -> {
                  OptionalDouble drop = g.optionalNumber("max_relative_drop", 0.001, 1);
                  if (!g.has("max_relative_drop")) {
                    g.error("max_relative_drop", "is required, e.g. 0.15 for a 15 % drop");
                  }
                  Duration baseline = g.duration("baseline", Policy.Regression.DEFAULT_BASELINE);
                  double minZ = g.number("min_z", Policy.Regression.DEFAULT_MIN_Z, 0, 100);
                  long minDrafts =
                      g.integer(
                          "min_baseline_drafts",
                          (int) Policy.Regression.DEFAULT_MIN_BASELINE_DRAFTS,
                          0,
                          Integer.MAX_VALUE);
                  Optional<String> severity = severity(g);
                  g.finish();
                  return drop.isPresent()
                      ? Optional.of(
                          new Policy.Regression(
                              drop.getAsDouble(), baseline, minZ, minDrafts, severity))
                      : Optional.empty();
                });
    Optional<Policy.Throughput> throughput =
        t.map("throughput")
            .flatMap(
                g -> {
                  OptionalDouble drop = g.optionalNumber("max_relative_drop", 0.001, 1);
                  if (!g.has("max_relative_drop")) {
                    g.error("max_relative_drop", "is required, e.g. 0.3 for a 30 % drop");
                  }
                  Duration baseline = g.duration("baseline", Policy.Regression.DEFAULT_BASELINE);
                  Optional<String> severity = severity(g);
                  g.finish();
                  return drop.isPresent()
                      ? Optional.of(new Policy.Throughput(drop.getAsDouble(), baseline, severity))
                      : Optional.empty();
                });
    t.finish();
    return new Policy.Thresholds(acceptance, meanLength, positions, regression, throughput);
  }

  private static Optional<Policy.Maintenance> maintenance(MapReader m) {
    Optional<Instant> start = instant(m, "start");
    Optional<Instant> end = instant(m, "end");
    String comment = m.string("comment", "");
    m.finish();
    if (start.isEmpty() || end.isEmpty()) {
      return Optional.empty();
    }
    if (!end.get().isAfter(start.get())) {
      m.error("end", "must be after start");
      return Optional.empty();
    }
    return Optional.of(new Policy.Maintenance(start.get(), end.get(), comment));
  }

  private static Optional<Instant> instant(MapReader m, String key) {
    if (!m.has(key)) {
      m.error(key, "is required, e.g. 2026-12-01T02:00:00Z");
      return Optional.empty();
    }
    Optional<String> text = m.optionalString(key);
    try {
      return text.map(Instant::parse);
    } catch (DateTimeParseException e) {
      m.error(key, "expected an RFC 3339 time like 2026-12-01T02:00:00Z, got '" + text.get() + "'");
      return Optional.empty();
    }
  }

  private static Optional<String> severity(MapReader r) {
    Optional<String> severity = r.optionalString("severity");
    if (severity.isPresent() && !SEVERITIES.contains(severity.get())) {
      r.error("severity", "one of info, warning, critical");
      return Optional.empty();
    }
    return severity;
  }

  private static Optional<Threshold> threshold(MapReader a, double min, double max) {
    OptionalDouble below = a.optionalNumber("below", min, max);
    if (!a.has("below")) {
      a.error("below", "is required");
    }
    OptionalDouble clear = a.optionalNumber("clear_above", min, max);
    Optional<String> severity = severity(a);
    a.finish();
    if (below.isEmpty()) {
      return Optional.empty();
    }
    if (clear.isPresent() && clear.getAsDouble() < below.getAsDouble()) {
      a.error("clear_above", "must be at least 'below' (" + below.getAsDouble() + ")");
      return Optional.empty();
    }
    return Optional.of(new Threshold(below.getAsDouble(), clear, severity));
  }
}
