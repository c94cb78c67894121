package dev.specwatch.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.specwatch.alerting.Silence;
import dev.specwatch.model.Durations;
import dev.specwatch.model.Policy;
import dev.specwatch.signals.EvaluationJson;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET/POST /api/v1/silences} and {@code DELETE /api/v1/silences/{id}}: the same silences as
 * {@code specwatch silence} and the UI's form, in the JSON of {@code silence list --output json}.
 */
final class SilenceApi {
  private SilenceApi() {}

  static Map<String, Object> list(List<Silence> silences) {
    Instant now = Instant.now();
    return Map.of("silences", silences.stream().map(s -> s.json(now)).toList());
  }

  /**
   * Body: {@code {"recipe": "qwen*", "rule": null, "duration": "2h", "comment": "…"}}, and {@code
   * "confirm_all": true} for a silence of every recipe.
   */
  static Response create(StatusServer.Source source, Request r) throws IOException {
    JsonNode body;
    try {
      body = EvaluationJson.MAPPER.readTree(r.body());
    } catch (IOException e) {
      return error(400, "the body is not JSON: " + e.getClass().getSimpleName());
    }
    if (body == null || !body.isObject()) {
      return error(400, "expected a JSON object with recipe, duration and comment");
    }
    try {
      Silence s =
          add(
              source,
              body.path("recipe").asText(""),
              body.path("rule").isNull() ? "" : body.path("rule").asText(""),
              body.path("duration").asText(""),
              body.path("comment").asText(""),
              body.path("created_by").asText("api"),
              body.path("confirm_all").asBoolean(false));
      return Response.json(201, s.json(Instant.now()));
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    }
  }

  /** Validates the fields shared by the API and the form, then adds the silence. */
  static Silence add(
      StatusServer.Source source,
      String recipe,
      String rule,
      String duration,
      String comment,
      String author,
      boolean confirmAll)
      throws IOException {
    if (recipe.isBlank()) {
      throw new IllegalArgumentException("recipe is required (a name or a glob like qwen*)");
    }
    List<String> recipes = source.policies().stream().map(Policy::recipe).toList();
    if (!confirmAll && Silence.silencesEverything(recipe, recipes)) {
      throw new IllegalArgumentException(
          "'"
              + recipe.strip()
              + "' silences every recipe: nothing would be notified; confirm it (API:"
              + " \"confirm_all\": true, form: tick \"Silence every recipe\")");
    }
    Optional<Duration> d = Durations.parse(duration.isBlank() ? "2h" : duration.strip());
    if (d.isEmpty() || d.get().isZero() || d.get().compareTo(Duration.ofDays(90)) > 0) {
      throw new IllegalArgumentException(
          "duration must be like 30m, 2h or 3d (at most 90d), got '" + duration + "'");
    }
    if (comment.isBlank()) {
      throw new IllegalArgumentException("comment is required: say why");
    }
    if (comment.length() > 500 || recipe.length() > 200 || rule.length() > 100) {
      throw new IllegalArgumentException("recipe, rule or comment is too long");
    }
    return source.addSilence(
        recipe.strip(),
        rule.isBlank() ? Optional.empty() : Optional.of(rule.strip()),
        d.get(),
        comment.strip(),
        author);
  }

  static Response expire(StatusServer.Source source, Request r) throws IOException {
    return source.expireSilence(r.pathParam())
        ? Response.json(200, Map.of("status", "expired", "id", r.pathParam()))
        : error(404, "no active silence with id " + r.pathParam());
  }

  private static Response error(int status, String message) {
    return Response.json(status, Map.of("status", "error", "error", message));
  }
}
