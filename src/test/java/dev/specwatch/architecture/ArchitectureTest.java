package dev.specwatch.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The layering of docs/ARCHITECTURE.md, enforced on the compiled main classes. */
class ArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.specwatch");
  }

  @Test
  void packagesHaveNoCycles() {
    slices().matching("dev.specwatch.(*)..").should().beFreeOfCycles().check(classes);
  }

  @Test
  void packagesOnlyImportTheLayersBelowThem() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("model")
        .definedBy("dev.specwatch.model..")
        .layer("log")
        .definedBy("dev.specwatch.log..")
        .layer("yaml")
        .definedBy("dev.specwatch.yaml..")
        .layer("http")
        .definedBy("dev.specwatch.http..")
        .layer("store")
        .definedBy("dev.specwatch.store..")
        .layer("advisor")
        .definedBy("dev.specwatch.advisor..")
        .layer("detect")
        .definedBy("dev.specwatch.detect..")
        .layer("prometheus")
        .definedBy("dev.specwatch.prometheus..")
        .layer("signals")
        .definedBy("dev.specwatch.signals..")
        .layer("config")
        .definedBy("dev.specwatch.config..")
        .layer("alerting")
        .definedBy("dev.specwatch.alerting..")
        .layer("notify")
        .definedBy("dev.specwatch.notify..")
        .layer("digest")
        .definedBy("dev.specwatch.digest..")
        .layer("ha")
        .definedBy("dev.specwatch.ha..")
        .layer("backend")
        .definedBy("dev.specwatch.backend..")
        .layer("server")
        .definedBy("dev.specwatch.server..")
        .layer("schedule")
        .definedBy("dev.specwatch.schedule..")
        .layer("recipes")
        .definedBy("dev.specwatch.recipes..")
        .layer("sim")
        .definedBy("dev.specwatch.sim..")
        .layer("cli")
        .definedBy("dev.specwatch.cli..")
        .whereLayer("model")
        .mayNotAccessAnyLayer()
        .whereLayer("log")
        .mayOnlyAccessLayers("model")
        .whereLayer("http")
        .mayOnlyAccessLayers("model")
        .whereLayer("store")
        .mayNotAccessAnyLayer()
        .whereLayer("advisor")
        .mayNotAccessAnyLayer()
        .whereLayer("detect")
        .mayNotAccessAnyLayer()
        .whereLayer("yaml")
        .mayOnlyAccessLayers("model")
        .whereLayer("prometheus")
        .mayOnlyAccessLayers("model", "http")
        .whereLayer("signals")
        .mayOnlyAccessLayers("model", "prometheus", "advisor")
        .whereLayer("config")
        .mayOnlyAccessLayers("model", "yaml")
        .whereLayer("alerting")
        .mayOnlyAccessLayers("model", "signals", "prometheus", "store", "detect")
        .whereLayer("notify")
        .mayOnlyAccessLayers("model", "alerting", "signals", "store", "http")
        .whereLayer("digest")
        .mayOnlyAccessLayers(
            "model",
            "alerting",
            "notify",
            "signals",
            "prometheus",
            "store",
            "advisor",
            "detect",
            "http")
        .whereLayer("ha")
        .mayOnlyAccessLayers("model", "alerting", "notify", "digest", "signals", "detect", "store")
        .whereLayer("backend")
        .mayOnlyAccessLayers(
            "model", "alerting", "notify", "digest", "signals", "detect", "store", "ha")
        .whereLayer("server")
        .mayOnlyAccessLayers("model", "alerting", "notify", "signals", "detect", "store", "ha")
        .whereLayer("schedule")
        .mayOnlyAccessLayers(
            "model",
            "yaml",
            "config",
            "prometheus",
            "signals",
            "alerting",
            "notify",
            "digest",
            "server",
            "advisor",
            "detect",
            "store",
            "ha",
            "backend")
        .whereLayer("sim")
        .mayOnlyAccessLayers("model", "yaml")
        .whereLayer("recipes")
        .mayOnlyAccessLayers("model", "yaml", "detect")
        .whereLayer("cli")
        .mayNotBeAccessedByAnyLayer()
        .check(classes);
  }

  /**
   * Global JVM properties are set in one place, by Main before anything runs (JvmSettings): before,
   * the static initializers of StatusServer and DigestCharts set them whenever the class loaded.
   */
  @Test
  void onlyJvmSettingsSetsSystemProperties() {
    noClasses()
        .that()
        .doNotHaveSimpleName("JvmSettings")
        .should()
        .callMethod(System.class, "setProperty", String.class, String.class)
        .orShould()
        .callMethod(System.class, "setProperties", java.util.Properties.class)
        .check(classes);
  }

  @Test
  void noMainSourceFileIsLongerThan400Lines() throws IOException {
    Map<Path, Long> tooLong;
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      List<Path> sources = files.filter(p -> p.toString().endsWith(".java")).toList();
      tooLong =
          sources.stream()
              .collect(Collectors.toMap(p -> p, ArchitectureTest::lines))
              .entrySet()
              .stream()
              .filter(e -> e.getValue() > 400)
              .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
    assertThat(tooLong).as("split these files").isEmpty();
  }

  /**
   * No catch block that only holds a comment: a failure is handled (logged, attached, returned as a
   * value) where it is caught, or left to propagate. docs/ARCHITECTURE.md, "Errors".
   */
  @Test
  void noCatchBlockIsEmptyOrOnlyAComment() throws IOException {
    List<String> silent = new java.util.ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(p);
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i);
          if (!line.matches(".*\\bcatch \\(.*\\) \\{.*")) {
            continue;
          }
          if (line.matches(".*\\bcatch \\([^)]*\\) \\{\\s*}.*")) {
            silent.add(p + ":" + (i + 1));
            continue;
          }
          int indent = line.length() - line.stripLeading().length();
          boolean code = false;
          for (int j = i + 1; j < lines.size(); j++) {
            String l = lines.get(j);
            String t = l.strip();
            if (t.startsWith("}") && l.length() - l.stripLeading().length() == indent) {
              break;
            }
            code |= !t.isEmpty() && !t.startsWith("//");
          }
          if (!code) {
            silent.add(p + ":" + (i + 1));
          }
        }
      }
    }
    assertThat(silent).as("catch blocks that only hold a comment").isEmpty();
  }

  /**
   * Every test that runs {@code specwatch run} (as a process, or in-process) writes its config with
   * {@code testing.DaemonProcess.Config}, and only that fixture starts the process: one place to
   * change when the daemon's config or start-up changes. The benches are left out (their daemons
   * run with heap limits and ports of their own).
   */
  @Test
  void everyTestThatRunsTheDaemonUsesTheSharedFixture() throws IOException {
    List<String> own = new java.util.ArrayList<>();
    int runners = 0;
    try (Stream<Path> files = Files.walk(Path.of("src/test/java/dev/specwatch"))) {
      for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String name = p.toString().replace('\\', '/');
        if (name.endsWith("/testing/DaemonProcess.java")
            || name.endsWith("/schedule/DaemonAccess.java")
            || name.endsWith("/schedule/DaemonBench.java")
            || name.contains("/bench/")
            || name.endsWith("/ArchitectureTest.java")) {
          continue;
        }
        String text = Files.readString(p);
        boolean runsDaemon =
            text.contains("DaemonAccess.start(")
                || text.contains("new Daemon(")
                || text.contains("DaemonProcess.start(")
                || text.contains("\"-jar\"");
        if (!runsDaemon) {
          continue;
        }
        runners++;
        if (text.contains("\"-jar\"")
            || text.contains("prometheus: {url:")
            || !text.contains("DaemonProcess.Config")) {
          own.add(name);
        }
      }
    }
    assertThat(runners).as("tests that run the daemon").isGreaterThanOrEqualTo(8);
    assertThat(own).as("tests that write the daemon's config or start it on their own").isEmpty();
  }

  /**
   * Alerts are identified and decided on by type: {@code alerting.AlertKey} (recipe alert or
   * specwatch's own), {@code model.RuleName}, {@code model.Severity}, {@code Transition.Kind}. No
   * code outside those types compares, searches or switches on the text of an alert id, a rule
   * name, a reason or a severity, and no query depends on an enum's order or a name's prefix.
   * docs/ARCHITECTURE.md, "How an alert is identified".
   */
  @Test
  void noDecisionIsTakenOnTheTextOfAnAlertsIdentity() throws IOException {
    java.util.regex.Pattern text =
        java.util.regex.Pattern.compile(
            String.join(
                "|",
                "\\b(rule|reason|alertId|severity)\\(\\)\\s*\\.(equals|equalsIgnoreCase|startsWith"
                    + "|endsWith|contains|replaceFirst|matches|indexOf)\\(",
                "\"[^\"]*\"\\.(equals|equalsIgnoreCase)\\([\\w.]*\\b(rule|reason|alertId|severity)"
                    + "\\(\\)\\)",
                "switch \\([\\w.]*\\b(rule|reason|alertId|severity)\\(\\)\\)",
                "startsWith\\(\"(specwatch/|STEP_)",
                "EnumSet\\.range\\(",
                "\\.ordinal\\(\\)"));
    // The identity types, and the config check that keeps their reserved names out of recipes.
    List<String> found =
        linesMatching(
            List.of("src/main/java"),
            java.util.Set.of(
                "AlertKey.java", "RuleName.java", "Transition.java", "RecipeNames.java"),
            text);
    assertThat(found)
        .as("decisions on the text of an alert id, rule, reason or severity")
        .isEmpty();
  }

  /**
   * Alerts and transitions are built from their {@code AlertKey} (so the stored id is always the
   * key's) by {@code ActiveAlert}'s factories and {@code Transition.builder}: no main or test code
   * calls their canonical constructors, which take 13 and 18 positional components.
   */
  @Test
  void alertsAndTransitionsAreBuiltFromTheirKey() throws IOException {
    List<String> found =
        linesMatching(
            List.of("src/main/java", "src/test/java"),
            java.util.Set.of("ActiveAlert.java", "Transition.java", "ArchitectureTest.java"),
            java.util.regex.Pattern.compile("\\bnew (ActiveAlert|Transition)\\("));
    assertThat(found).as("alerts or transitions built positionally").isEmpty();
  }

  /**
   * The file/postgres choice is made once, by {@code backend.StateBackend}: no class outside the
   * backend (and the stores' own packages) opens a store of either kind, reads which backend the
   * config chose, or asks a store whether it is shared. docs/ARCHITECTURE.md, "Where the state
   * backend is chosen".
   */
  @Test
  void nothingOutsideTheBackendAsksWhichBackendItIs() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.specwatch.backend..",
            "dev.specwatch.model..",
            "dev.specwatch.config..",
            "dev.specwatch.alerting..",
            "dev.specwatch.notify..",
            "dev.specwatch.ha..")
        .should()
        .callMethod(dev.specwatch.model.SpecwatchConfig.class, "database")
        .orShould()
        .callMethod(
            dev.specwatch.ha.Cluster.class,
            "open",
            dev.specwatch.model.SpecwatchConfig.Database.class,
            java.time.Clock.class,
            String.class)
        .orShould()
        .callMethod(
            dev.specwatch.ha.Database.class,
            "open",
            dev.specwatch.model.SpecwatchConfig.Database.class,
            String.class)
        .orShould()
        .callConstructorWhere(
            com.tngtech.archunit.base.DescribedPredicate.describe(
                "a constructor of a file or database store",
                call -> STORES.contains(call.getTargetOwner().getName())))
        .because("the state backend is chosen in one place: backend.StateBackend")
        .allowEmptyShould(false)
        .check(classes);
  }

  /** Every {@code path:line: text} under {@code roots} matching {@code p}, but in {@code skip}. */
  private static List<String> linesMatching(
      List<String> roots, java.util.Set<String> skip, java.util.regex.Pattern p)
      throws IOException {
    List<String> found = new java.util.ArrayList<>();
    for (String root : roots) {
      try (Stream<Path> files = Files.walk(Path.of(root))) {
        for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          if (skip.contains(f.getFileName().toString())) {
            continue;
          }
          List<String> lines = Files.readAllLines(f);
          for (int i = 0; i < lines.size(); i++) {
            if (p.matcher(lines.get(i)).find()) {
              found.add(f + ":" + (i + 1) + ": " + lines.get(i).strip());
            }
          }
        }
      }
    }
    return found;
  }

  private static final java.util.Set<String> STORES =
      java.util.Set.of(
          "dev.specwatch.alerting.FileStateStore",
          "dev.specwatch.alerting.SilenceStore",
          "dev.specwatch.alerting.TransitionHistory",
          "dev.specwatch.notify.FileOutbox",
          "dev.specwatch.ha.Cluster",
          "dev.specwatch.ha.PgStateStore",
          "dev.specwatch.ha.PgSilences",
          "dev.specwatch.ha.PgHistory",
          "dev.specwatch.ha.PgOutbox",
          "dev.specwatch.ha.PgKeyedStore");

  private static long lines(Path p) {
    try (Stream<String> lines = Files.lines(p)) {
      return lines.count();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
