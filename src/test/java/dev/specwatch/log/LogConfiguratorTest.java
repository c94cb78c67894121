package dev.specwatch.log;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The logging set up in code says what logback.xml says (the file a user may start from with {@code
 * -Dlogback.configurationFile}): the same levels, the same appender and the same line, with
 * credentials scrubbed, in text and in JSON.
 */
class LogConfiguratorTest {
  private static final String SECRET = "xoxb-1111-2222-abcdefghijklmnop";

  /** One failure for every line compared: the same stack trace. */
  private final Exception failure =
      new IllegalStateException("posting with token " + SECRET + " failed");

  private static LoggerContext fromCode(Map<String, String> env) {
    LoggerContext context = new LoggerContext();
    LogConfigurator configurator = new LogConfigurator(env::get);
    configurator.setContext(context);
    configurator.configure(context);
    return context;
  }

  private static LoggerContext fromXml(Map<String, String> env) throws Exception {
    LoggerContext context = new LoggerContext();
    env.forEach(context::putProperty);
    JoranConfigurator joran = new JoranConfigurator();
    joran.setContext(context);
    joran.doConfigure(LogConfigurator.class.getResource("/logback.xml"));
    return context;
  }

  private String line(LoggerContext context, String appender) {
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    @SuppressWarnings("unchecked")
    ConsoleAppender<ILoggingEvent> console =
        (ConsoleAppender<ILoggingEvent>) root.getAppender(appender);
    assertThat(console).as("appender " + appender + " on the root logger").isNotNull();
    assertThat(console.getTarget()).isEqualTo("System.err");
    LoggingEvent event =
        new LoggingEvent(
            LogConfiguratorTest.class.getName(),
            context.getLogger("dev.specwatch.notify.slack.SlackNotifier"),
            Level.ERROR,
            "slack: {}",
            failure,
            new Object[] {failure.getMessage()});
    event.setTimeStamp(1_796_320_843_144L);
    event.setThreadName("specwatch-outbox-slack");
    return new String(console.getEncoder().encode(event), StandardCharsets.UTF_8);
  }

  @Test
  void textLinesAndLevelsAreThoseOfLogbackXml() throws Exception {
    LoggerContext code = fromCode(Map.of());
    LoggerContext xml = fromXml(Map.of());
    String fromCode = line(code, "text");
    assertThat(fromCode).isEqualTo(line(xml, "text"));
    assertThat(fromCode)
        .startsWith("2026-12-03T")
        .contains("ERROR [specwatch-outbox-slack] d.s.n.s.SlackNotifier - slack: ")
        .contains("java.lang.IllegalStateException")
        .doesNotContain(SECRET);
    for (Logger logger : xml.getLoggerList()) {
      assertThat(code.getLogger(logger.getName()).getLevel())
          .as(logger.getName())
          .isEqualTo(logger.getLevel());
    }
    assertThat(code.getLogger("org.quartz.core.QuartzSchedulerThread").getLevel())
        .isEqualTo(Level.OFF);
    assertThat(code.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.INFO);
  }

  @Test
  void jsonAndTheLevelComeFromTheEnvironmentAsInLogbackXml() throws Exception {
    Map<String, String> env =
        Map.of("SPECWATCH_LOG_FORMAT", "json", "SPECWATCH_LOG_LEVEL", "debug");
    LoggerContext code = fromCode(env);
    LoggerContext xml = fromXml(env);
    String fromCode = line(code, "json");
    assertThat(fromCode).isEqualTo(line(xml, "json"));
    assertThat(fromCode).contains("\"level\":\"ERROR\"").doesNotContain(SECRET);
    assertThat(code.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel())
        .isEqualTo(Level.DEBUG)
        .isEqualTo(xml.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel());
    assertThat(code.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("text")).isNull();
  }
}
