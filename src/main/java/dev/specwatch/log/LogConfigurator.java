package dev.specwatch.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.status.NopStatusListener;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * specwatch's logging, set up in code (found by logback through {@code META-INF/services}) rather
 * than parsed from XML: the XML configurator loads about 500 classes (logback's Joran and the JDK's
 * XML parser) that a daemon measured by its footprint does not need (docs/PERFORMANCE.md). Logs go
 * to stderr so stdout stays clean for command output; {@code SPECWATCH_LOG_FORMAT=json} writes one
 * JSON object per line instead of text; {@code SPECWATCH_LOG_LEVEL=debug} adds one line per
 * evaluation. Every line is scrubbed of credentials ({@link dev.specwatch.model.Redaction}).
 *
 * <p>A logback file of the user's ({@code -Dlogback.configurationFile=…}) replaces all of this:
 * logback then reads it as usual, and {@code logback.xml} in the jar says the same as this class.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {
  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{20} - %msg%n%rex";

  /** Levels of other libraries' loggers (the same as logback.xml, with the reasons there). */
  static final Map<String, Level> LEVELS =
      Map.ofEntries(
          Map.entry("okhttp3", Level.WARN),
          Map.entry("org.quartz", Level.WARN),
          Map.entry("org.quartz.impl.jdbcjobstore", Level.OFF),
          Map.entry("dev.specwatch.ha.ClusterJobStore", Level.OFF),
          Map.entry("org.quartz.core.QuartzSchedulerThread", Level.OFF),
          Map.entry("org.quartz.core.ErrorLogger", Level.OFF),
          Map.entry("com.zaxxer.hikari", Level.ERROR),
          Map.entry("org.flywaydb", Level.WARN),
          Map.entry("com.slack.api", Level.INFO));

  private final Function<String, String> environment;

  public LogConfigurator() {
    this(System::getenv);
  }

  LogConfigurator(Function<String, String> environment) {
    this.environment = environment;
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    NopStatusListener quiet = new NopStatusListener();
    context.getStatusManager().add(quiet);
    boolean json =
        Optional.ofNullable(environment.apply("SPECWATCH_LOG_FORMAT"))
            .map(f -> f.trim().toLowerCase(Locale.ROOT).equals("json"))
            .orElse(false);
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName(json ? "json" : "text");
    appender.setTarget("System.err");
    appender.setEncoder(json ? json(context) : text(context));
    appender.start();
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(environment.apply("SPECWATCH_LOG_LEVEL"), Level.INFO));
    root.addAppender(appender);
    LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  private static Encoder<ILoggingEvent> text(LoggerContext context) {
    PatternLayout layout = new PatternLayout();
    layout.setContext(context);
    layout.getInstanceConverterMap().put("msg", RedactingMessageConverter::new);
    layout.getInstanceConverterMap().put("rex", RedactingThrowableConverter::new);
    layout.setPattern(PATTERN);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.start();
    return encoder;
  }

  private static Encoder<ILoggingEvent> json(LoggerContext context) {
    RedactingJsonEncoder encoder = new RedactingJsonEncoder();
    encoder.setContext(context);
    encoder.setWithSequenceNumber(false);
    encoder.setWithNanoseconds(false);
    encoder.setWithContext(false);
    encoder.setWithMDC(false);
    encoder.setWithArguments(false);
    encoder.setWithMessage(false);
    encoder.setWithFormattedMessage(true);
    encoder.start();
    return encoder;
  }
}
