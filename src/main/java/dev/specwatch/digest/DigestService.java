package dev.specwatch.digest;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import dev.specwatch.alerting.History;
import dev.specwatch.alerting.TransitionHistory;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import dev.specwatch.store.DurableFiles;
import dev.specwatch.store.KeyedStore;
import jakarta.mail.MessagingException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TimeZone;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.quartz.CronExpression;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds and mails the weekly digest exactly once per period: a record of sent periods in {@code
 * <state.dir>/digest-sent.json} is checked before and written after a successful send. A digest
 * missed while the daemon was down is sent at start-up if it is at most {@code digest.max_lateness}
 * late. SMTP failures are retried with backoff. The one duplicate possible: the process dies after
 * the server accepted the mail and before the record is written.
 */
public final class DigestService {
  private static final Logger logger = LoggerFactory.getLogger(DigestService.class);

  /** What a call did. */
  public enum Outcome {
    SENT,
    ALREADY_SENT,
    NOT_DUE,
    TOO_LATE,
    FAILED
  }

  private final SpecwatchConfig config;
  private final SpecwatchConfig.Digest digest;
  private final PrometheusApi api;
  private final Clock clock;
  private final Path sentFile;
  private History history;
  private KeyedStore<SentRecord> ledger;
  private final RetryPolicy<Object> retry;

  public DigestService(
      SpecwatchConfig config, PrometheusApi api, Clock clock, RetryPolicy<Object> retry) {
    this.config = config;
    this.digest = config.digest().orElse(SpecwatchConfig.Digest.defaults());
    this.api = api;
    this.clock = clock;
    this.sentFile = config.stateDir().resolve("digest-sent.json");
    this.history = new TransitionHistory(config.stateDir());
    this.retry = retry;
  }

  /** Reads transitions from, and records sent digests in, the shared database (not files). */
  public DigestService withStores(History transitions, KeyedStore<SentRecord> sentLedger) {
    this.history = transitions;
    this.ledger = sentLedger;
    return this;
  }

  /** SMTP retries: 1 s doubling to 5 min, six attempts (about ten minutes). */
  public static RetryPolicy<Object> defaultRetry() {
    return RetryPolicy.builder()
        .handle(MessagingException.class)
        .withBackoff(Duration.ofSeconds(1), Duration.ofMinutes(5))
        .withJitter(0.2)
        .withMaxAttempts(6)
        .build();
  }

  public DigestRenderer.Rendered render(DigestPeriod period)
      throws PrometheusException, IOException {
    Digest d =
        new DigestCollector(api, config.grafanaUrl(), clock)
            .collect(
                period,
                config.policies(),
                config.baselines(),
                history.between(period.start(), period.end()));
    return new DigestRenderer(digest.templateDir()).render(d);
  }

  /** When the digest of {@code period} is due: the first cron fire after the period ends. */
  public Instant dueAt(DigestPeriod period) {
    try {
      CronExpression cron = new CronExpression(digest.schedule());
      cron.setTimeZone(TimeZone.getTimeZone(digest.timeZone()));
      Date next = cron.getNextValidTimeAfter(Date.from(period.end().minusMillis(1)));
      return next.toInstant();
    } catch (ParseException e) {
      throw new IllegalStateException("invalid digest.schedule (validated at load)", e);
    }
  }

  /**
   * Sends the last complete week's digest if it is due, not sent yet and not too late. Called by
   * the cron job and once at start-up.
   */
  public synchronized Outcome sendIfDue() {
    Instant now = clock.instant();
    DigestPeriod period = DigestPeriod.lastComplete(now, digest.timeZone());
    Instant due = dueAt(period);
    if (now.isBefore(due)) {
      return Outcome.NOT_DUE;
    }
    Map<String, SentRecord> sent = sent();
    if (destinations(period).stream().allMatch(d -> sent.containsKey(d.key()))) {
      return Outcome.ALREADY_SENT;
    }
    if (Duration.between(due, now).compareTo(digest.maxLateness()) > 0) {
      logger.warn(
          "weekly digest {} was due at {} and is more than {} late; not sending it"
              + " (send it by hand with `specwatch digest --send --period {}`)",
          period.label(),
          due,
          digest.maxLateness(),
          period.label());
      for (Destination d : destinations(period)) {
        record(d.key(), now, false);
      }
      return Outcome.TOO_LATE;
    }
    return deliver(period, true);
  }

  /** Sends the digest of {@code period} now to every destination, even if sent before. */
  public synchronized Outcome send(DigestPeriod period) {
    return deliver(period, false);
  }

  /** Where one digest goes: the default list (the whole fleet) or a recipe group. */
  private record Destination(
      String key, String group, List<String> to, Predicate<String> recipes) {}

  private List<Destination> destinations(DigestPeriod period) {
    List<Destination> out = new ArrayList<>();
    digest
        .email()
        .ifPresent(
            email -> {
              out.add(new Destination(period.label(), "fleet", email.to(), r -> true));
              for (SpecwatchConfig.Group g : email.groups()) {
                out.add(
                    new Destination(period.label() + "/" + g.name(), g.name(), g.to(), g::covers));
              }
            });
    return out;
  }

  private Outcome deliver(DigestPeriod period, boolean onlyUnsent) {
    if (digest.email().isEmpty()) {
      logger.warn("digest {} not sent: no digest.email configured", period.label());
      return Outcome.FAILED;
    }
    Digest full;
    try {
      full = collect(period);
    } catch (PrometheusException | IOException | RuntimeException e) {
      logger.error("weekly digest {} not built: {}", period.label(), e.getMessage());
      return Outcome.FAILED;
    }
    Map<String, SentRecord> sent = sent();
    DigestMailer mailer = new DigestMailer(digest.email().get());
    DigestRenderer renderer = new DigestRenderer(digest.templateDir());
    boolean failed = false;
    for (Destination d : destinations(period)) {
      if (onlyUnsent && sent.containsKey(d.key())) {
        continue;
      }
      Digest part =
          new Digest(
              period, full.recipes().stream().filter(r -> d.recipes().test(r.recipe())).toList());
      if (part.recipes().isEmpty()) {
        record(d.key(), clock.instant(), false);
        continue;
      }
      try {
        DigestRenderer.Rendered rendered = renderer.render(part);
        Failsafe.with(retry).run(() -> mailer.send(rendered, d.to(), clock.instant()));
        record(d.key(), clock.instant(), true);
        logger.info(
            "weekly digest {} ({}) sent to {} recipient(s): {}",
            period.label(),
            d.group(),
            d.to().size(),
            rendered.subject());
      } catch (FailsafeException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        logger.error(
            "weekly digest {} ({}) not sent after retries: {}",
            period.label(),
            d.group(),
            cause.getMessage());
        failed = true;
      }
    }
    if (!failed) {
      slack.ifPresent(s -> s.accept(full));
    }
    return failed ? Outcome.FAILED : Outcome.SENT;
  }

  private Digest collect(DigestPeriod period) throws PrometheusException, IOException {
    return new DigestCollector(api, config.grafanaUrl(), clock)
        .collect(
            period,
            config.policies(),
            config.baselines(),
            history.between(period.start(), period.end()));
  }

  private Optional<Consumer<Digest>> slack = Optional.empty();

  /** Also posts the fleet summary to Slack after the mail went out (best effort). */
  public DigestService withSlackSummary(Consumer<Digest> post) {
    this.slack = Optional.of(post);
    return this;
  }

  /** Periods already handled, with when they were sent (or skipped as too late). */
  public Map<String, SentRecord> sent() {
    if (ledger != null) {
      return new TreeMap<>(ledger.all());
    }
    try {
      return DurableFiles.JSON.readValue(
          Files.readAllBytes(sentFile), new TypeReference<TreeMap<String, SentRecord>>() {});
    } catch (NoSuchFileException e) {
      return new TreeMap<>();
    } catch (IOException e) {
      logger.error("cannot read {}: {}; treating no digest as sent", sentFile, e.getMessage());
      return new TreeMap<>();
    }
  }

  /** One handled period. */
  public record SentRecord(Instant at, boolean sent) {}

  private void record(String key, Instant at, boolean sent) {
    if (ledger != null) {
      ledger.put(key, new SentRecord(at, sent));
      return;
    }
    Map<String, SentRecord> all = new TreeMap<>(sent());
    all.put(key, new SentRecord(at, sent));
    try {
      DurableFiles.writeAtomically(sentFile, all);
    } catch (IOException e) {
      logger.error("cannot record digest {} as sent in {}: {}", key, sentFile, e.getMessage());
    }
  }

  public Optional<SpecwatchConfig.Email> email() {
    return digest.email();
  }
}
