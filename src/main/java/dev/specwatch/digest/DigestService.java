package dev.specwatch.digest;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import dev.specwatch.alerting.History;
import dev.specwatch.model.SpecwatchConfig;
import dev.specwatch.prometheus.PrometheusApi;
import dev.specwatch.prometheus.PrometheusException;
import jakarta.mail.MessagingException;
import java.io.IOException;
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
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.quartz.CronExpression;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds and mails the weekly digest exactly once per period: a record of sent periods (the state
 * backend's {@link DigestLedger}) is checked before and written after a successful send. A digest
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
  private final History history;
  private final DigestLedger ledger;
  private final RetryPolicy<Object> retry;
  private final Optional<Consumer<Digest>> slack;

  /** Where the digest reads the week's transitions and records what it sent. */
  public record Stores(History history, DigestLedger ledger) {}

  /**
   * @param stores the state backend's transition history and digest ledger
   */
  public DigestService(
      SpecwatchConfig config,
      PrometheusApi api,
      Clock clock,
      RetryPolicy<Object> retry,
      Stores stores) {
    this(config, api, clock, retry, stores, Optional.empty());
  }

  private DigestService(
      SpecwatchConfig config,
      PrometheusApi api,
      Clock clock,
      RetryPolicy<Object> retry,
      Stores stores,
      Optional<Consumer<Digest>> slack) {
    this.config = config;
    this.digest = config.digest().orElse(SpecwatchConfig.Digest.defaults());
    this.api = api;
    this.clock = clock;
    this.history = stores.history();
    this.ledger = stores.ledger();
    this.retry = retry;
    this.slack = slack;
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
    Optional<Map<String, DigestLedger.SentRecord>> read = readLedger();
    if (read.isEmpty()) {
      return Outcome.FAILED;
    }
    Map<String, DigestLedger.SentRecord> sent = read.get();
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
    Optional<Map<String, DigestLedger.SentRecord>> read =
        onlyUnsent ? readLedger() : Optional.of(Map.of());
    if (read.isEmpty()) {
      return Outcome.FAILED;
    }
    Map<String, DigestLedger.SentRecord> sent = read.get();
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

  /** The same service, also posting the fleet summary to Slack after the mail (best effort). */
  public DigestService withSlackSummary(Consumer<Digest> post) {
    return new DigestService(
        config, api, clock, retry, new Stores(history, ledger), Optional.of(post));
  }

  /** Periods already handled, with when they were sent (or skipped as too late). */
  public Map<String, DigestLedger.SentRecord> sent() throws IOException {
    return ledger.sent();
  }

  /**
   * Periods already handled; empty (logged) when the ledger cannot be read, and the caller then
   * sends nothing: a digest that may have gone out is not mailed again on a guess.
   */
  private Optional<Map<String, DigestLedger.SentRecord>> readLedger() {
    try {
      return Optional.of(sent());
    } catch (IOException e) {
      logger.error(
          "the digest ledger cannot be read ({}); not sending, so no digest goes out twice;"
              + " send one by hand with `specwatch digest --send --period <week>`",
          e.getMessage());
      return Optional.empty();
    }
  }

  private void record(String key, Instant at, boolean sent) {
    try {
      ledger.record(key, new DigestLedger.SentRecord(at, sent));
    } catch (IOException e) {
      logger.error("cannot record digest {} as handled: {}", key, e.getMessage());
    }
  }

  public Optional<SpecwatchConfig.Email> email() {
    return digest.email();
  }
}
