package dev.specwatch.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.specwatch.signals.EvaluationJson;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a handler answers: status, content type, body and extra headers. */
record Response(int status, String type, String body, Map<String, String> headers) {

  static Response text(int status, String body) {
    return new Response(status, "text/plain; charset=utf-8", body, Map.of());
  }

  static Response html(int status, String body) {
    return new Response(status, "text/html; charset=utf-8", body, Map.of());
  }

  static Response json(int status, Object body) {
    try {
      return new Response(
          status, "application/json", EvaluationJson.MAPPER.writeValueAsString(body), Map.of());
    } catch (JsonProcessingException e) {
      return text(500, "cannot encode the response\n");
    }
  }

  /** 303 See Other: after a form post, the browser loads {@code location} with GET. */
  static Response seeOther(String location) {
    return new Response(303, "text/plain; charset=utf-8", "", Map.of("Location", location));
  }

  Response withHeader(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put(name, value);
    return new Response(status, type, body, h);
  }
}
