package dev.specwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.specwatch.config.ConfigLoader;
import dev.specwatch.model.SpecwatchConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the packaging promises; docker itself cannot run on the CI machine. */
class DeployFilesTest {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void composeRunsPrometheusGrafanaAndSpecwatchWithPinnedImages() throws IOException {
    JsonNode compose =
        YAML.readTree(Path.of("deploy/compose/docker-compose.metrics.yaml").toFile());
    JsonNode services = compose.path("services");
    assertThat(services.has("prometheus")).isTrue();
    assertThat(services.has("grafana")).isTrue();
    assertThat(services.has("specwatch")).isTrue();
    assertThat(services.path("prometheus").path("image").asText())
        .matches(".+:v\\d+\\.\\d+\\.\\d+");
    assertThat(services.path("grafana").path("image").asText()).matches(".+:\\d+\\.\\d+\\.\\d+");
    assertThat(services.path("prometheus").path("command").toString())
        .contains("--web.enable-lifecycle");
    assertThat(services.path("specwatch").path("build").path("dockerfile").asText())
        .isEqualTo("deploy/docker/Dockerfile");
  }

  @Test
  void dockerfileIsMultiStageAndRunsAsANonRootUserWithAHealthcheck() throws IOException {
    String dockerfile = Files.readString(Path.of("deploy/docker/Dockerfile"));
    assertThat(dockerfile)
        .contains("AS build")
        .contains("COPY --from=build")
        .contains("USER 10001:10001")
        .contains("groupadd --system --gid 10001 specwatch")
        .contains("VOLUME [\"/var/lib/specwatch\"]")
        .contains("HEALTHCHECK")
        // The port the config listens on, not a fixed 9464 (make install-test runs it elsewhere).
        .contains("http://127.0.0.1:${SPECWATCH_PORT}/healthz")
        .contains("ENV SPECWATCH_PORT=9464");
    // The base images are build arguments whose defaults are pinned public images.
    assertThat(dockerfile.lines().filter(l -> l.startsWith("ARG ") && l.contains("_IMAGE=")))
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).matches("ARG [A-Z_]+_IMAGE=\\S+:[0-9][^ ]*"));
    assertThat(dockerfile.lines().filter(l -> l.startsWith("FROM ")))
        .allSatisfy(
            l -> assertThat(l).matches("FROM (\\$\\{(BUILD|RUNTIME)_IMAGE}|runtime)( AS \\w+)?"));
    assertThat(Files.readString(Path.of(".dockerignore")))
        .contains(".git")
        .contains("target/*")
        .contains("!target/specwatch.jar");
  }

  @Test
  void containerConfigValidatesWithTheShippedPolicies(@TempDir Path dir) throws IOException {
    Files.copy(Path.of("deploy/docker/specwatch.yaml"), dir.resolve("specwatch.yaml"));
    Files.createDirectories(dir.resolve("alerts"));
    try (Stream<Path> policies = Files.list(Path.of("alerts"))) {
      for (Path p : policies.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        Files.copy(p, dir.resolve("alerts").resolve(p.getFileName()));
      }
    }
    SpecwatchConfig c =
        new ConfigLoader(
                Map.of(
                        "PROMETHEUS_URL",
                        "http://prometheus:9090",
                        "GRAFANA_URL",
                        "http://localhost:3000")
                    ::get)
            .load(dir.resolve("specwatch.yaml"));
    assertThat(c.server().listen()).hasToString("0.0.0.0:9464");
    assertThat(c.grafanaUrl()).hasValue(java.net.URI.create("http://localhost:3000"));
    // PROMETHEUS_URL alone starts it: no Grafana, and the image's SPECWATCH_PORT.
    SpecwatchConfig alone =
        new ConfigLoader(
                Map.of("PROMETHEUS_URL", "http://prometheus:9090", "SPECWATCH_PORT", "19464")::get)
            .load(dir.resolve("specwatch.yaml"));
    assertThat(alone.grafanaUrl()).isEmpty();
    assertThat(alone.server().listen()).hasToString("0.0.0.0:19464");
    assertThat(c.policies()).hasSize(5);
    assertThat(c.baselines()).hasSize(1);
  }

  @Test
  void systemdUnitIsHardenedAndUsesTheStateDirectory() throws IOException {
    String unit = Files.readString(Path.of("deploy/systemd/specwatch.service"));
    assertThat(unit)
        .contains("User=specwatch")
        .contains("StateDirectory=specwatch")
        .contains("EnvironmentFile=-/etc/specwatch/specwatch.env")
        .contains("Restart=on-failure")
        .contains("ProtectSystem=strict")
        .contains("NoNewPrivileges=yes")
        .contains("PrivateTmp=yes")
        .contains("RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX")
        // READY=1 after the first evaluation, a watchdog fed while evaluations happen.
        .contains("Type=notify")
        .contains("WatchdogSec=")
        .contains("SystemCallFilter=@system-service")
        // A minimal Debian has no /bin/kill (procps): the shell's builtin sends SIGHUP.
        .contains("ExecReload=/bin/sh -c 'kill -HUP $$MAINPID'")
        .doesNotContain("/bin/kill");
  }
}
