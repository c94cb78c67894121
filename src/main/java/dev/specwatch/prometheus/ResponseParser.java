package dev.specwatch.prometheus;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.NumberInput;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Streams a Prometheus API response body into a {@link QueryResult} without building a JSON tree:
 * evaluation cost stays proportional to the number of samples. Any deviation from the documented
 * envelope is a {@link PrometheusException.Kind#BAD_RESPONSE}.
 */
final class ResponseParser {

  /** The envelope's outcome: a result, or Prometheus' own error. */
  record Envelope(QueryResult result, String errorType, String error) {}

  private ResponseParser() {}

  /**
   * A parser factory that stops at {@code maxBytes} of the answer: Jackson's own document length
   * constraint, so the answer is parsed as it streams and never held whole, and one too long fails
   * with {@link com.fasterxml.jackson.core.exc.StreamConstraintsException} once past the limit.
   */
  static JsonFactory limitedTo(long maxBytes) {
    return JsonFactory.builder()
        // Timestamps are read with Jackson's FastDoubleParser, exact as Double.parseDouble.
        .enable(com.fasterxml.jackson.core.StreamReadFeature.USE_FAST_DOUBLE_PARSER)
        .streamReadConstraints(
            com.fasterxml.jackson.core.StreamReadConstraints.builder()
                .maxDocumentLength(maxBytes)
                .build())
        .build();
  }

  static Envelope parse(JsonFactory json, InputStream body) throws IOException {
    try (JsonParser p = json.createParser(body)) {
      expect(p.nextToken() == JsonToken.START_OBJECT, "expected a JSON object");
      String status = null;
      String errorType = null;
      String error = null;
      List<String> warnings = new ArrayList<>();
      QueryResult data = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "status" -> status = p.getValueAsString();
          case "errorType" -> errorType = p.getValueAsString();
          case "error" -> error = p.getValueAsString();
          case "warnings", "infos" -> {
            if (value == JsonToken.START_ARRAY) {
              while (p.nextToken() != JsonToken.END_ARRAY) {
                warnings.add(p.getValueAsString());
              }
            } else {
              p.skipChildren();
            }
          }
          case "data" -> data = value == JsonToken.START_OBJECT ? readData(p) : skip(p);
          default -> p.skipChildren();
        }
      }
      expect(p.currentToken() == JsonToken.END_OBJECT, "truncated JSON");
      if ("error".equals(status)) {
        return new Envelope(
            null, errorType == null ? "unknown" : errorType, error == null ? "" : error);
      }
      expect("success".equals(status), "missing \"status\": \"success\"");
      expect(data != null, "missing \"data\"");
      return new Envelope(withWarnings(data, warnings), null, null);
    }
  }

  private static QueryResult skip(JsonParser p) throws IOException {
    p.skipChildren();
    return null;
  }

  private static QueryResult readData(JsonParser p) throws IOException {
    String type = null;
    QueryResult result = null;
    JsonToken token;
    while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      if (field.equals("resultType")) {
        type = p.getValueAsString();
      } else if (field.equals("result")) {
        // Prometheus writes resultType first; be strict about it rather than buffer the result.
        expect(type != null, "\"result\" before \"resultType\"");
        result = readResult(p, type);
      } else {
        p.skipChildren();
      }
    }
    expect(token == JsonToken.END_OBJECT, "truncated JSON");
    expect(result != null, "missing \"data.result\"");
    return result;
  }

  private static QueryResult readResult(JsonParser p, String type) throws IOException {
    switch (type) {
      case "vector" -> {
        expect(p.currentToken() == JsonToken.START_ARRAY, "vector result is not an array");
        List<Sample> samples = new ArrayList<>();
        // An instant query's samples share one timestamp: one Instant for them all, not one each
        // (the evaluator holds every sample of its queries until the recipes' snapshots are made).
        double lastTime = Double.NaN;
        Instant lastInstant = null;
        while (p.nextToken() == JsonToken.START_OBJECT) {
          Map<String, String> labels = Map.of();
          double[] value = null;
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
              case "metric" -> labels = readLabels(p);
              case "value" -> value = readPoint(p);
              default -> p.skipChildren();
            }
          }
          expect(value != null, "vector sample without \"value\"");
          if (lastInstant == null || Double.compare(value[0], lastTime) != 0) {
            lastTime = value[0];
            lastInstant = toInstant(lastTime);
          }
          samples.add(new Sample(labels, lastInstant, value[1]));
        }
        expect(p.currentToken() == JsonToken.END_ARRAY, "truncated vector");
        return new QueryResult.Vector(samples, List.of());
      }
      case "matrix" -> {
        expect(p.currentToken() == JsonToken.START_ARRAY, "matrix result is not an array");
        List<Series> series = new ArrayList<>();
        while (p.nextToken() == JsonToken.START_OBJECT) {
          Map<String, String> labels = Map.of();
          List<Series.Point> points = new ArrayList<>();
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            if (field.equals("metric")) {
              labels = readLabels(p);
            } else if (field.equals("values")) {
              expect(p.currentToken() == JsonToken.START_ARRAY, "values is not an array");
              while (p.nextToken() == JsonToken.START_ARRAY) {
                double[] point = readPointBody(p);
                points.add(new Series.Point(point[0], point[1]));
              }
            } else {
              p.skipChildren();
            }
          }
          series.add(new Series(labels, points));
        }
        expect(p.currentToken() == JsonToken.END_ARRAY, "truncated matrix");
        return new QueryResult.Matrix(series, List.of());
      }
      case "scalar" -> {
        double[] point = readPoint(p);
        return new QueryResult.Scalar(toInstant(point[0]), point[1], List.of());
      }
      case "string" -> {
        expect(p.currentToken() == JsonToken.START_ARRAY, "string result is not an array");
        p.nextToken();
        double time = p.getDoubleValue();
        p.nextToken();
        String text = p.getValueAsString();
        expect(p.nextToken() == JsonToken.END_ARRAY, "malformed string result");
        return new QueryResult.Text(toInstant(time), text, List.of());
      }
      default -> throw new MalformedResponse("unknown resultType \"" + type + "\"");
    }
  }

  /**
   * A series' labels, read straight into an immutable map ({@link Sample} keeps it as it is): a
   * hash map copied into one cost a fifth of what an evaluation allocates at 10,000 recipes
   * (docs/PERFORMANCE.md, 2026-12-06).
   */
  private static Map<String, String> readLabels(JsonParser p) throws IOException {
    expect(p.currentToken() == JsonToken.START_OBJECT, "metric is not an object");
    String[] pairs = new String[8];
    int n = 0;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      if (n == pairs.length) {
        pairs = Arrays.copyOf(pairs, n * 2);
      }
      pairs[n++] = p.currentName();
      p.nextToken();
      String value = p.getValueAsString();
      if (value == null) {
        throw new MalformedResponse("label \"" + abbreviate(pairs[n - 1]) + "\" is not a string");
      }
      pairs[n++] = value;
    }
    try {
      return switch (n / 2) {
        case 0 -> Map.of();
        case 1 -> Map.of(pairs[0], pairs[1]);
        case 2 -> Map.of(pairs[0], pairs[1], pairs[2], pairs[3]);
        case 3 -> Map.of(pairs[0], pairs[1], pairs[2], pairs[3], pairs[4], pairs[5]);
        case 4 ->
            Map.of(pairs[0], pairs[1], pairs[2], pairs[3], pairs[4], pairs[5], pairs[6], pairs[7]);
        default -> {
          List<Map.Entry<String, String>> entries = new ArrayList<>(n / 2);
          for (int i = 0; i < n; i += 2) {
            entries.add(Map.entry(pairs[i], pairs[i + 1]));
          }
          @SuppressWarnings("unchecked")
          Map.Entry<String, String>[] array = entries.toArray(Map.Entry[]::new);
          yield Map.ofEntries(array);
        }
      };
    } catch (IllegalArgumentException e) {
      throw new MalformedResponse("a series has the same label twice");
    }
  }

  private static double[] readPoint(JsonParser p) throws IOException {
    expect(p.currentToken() == JsonToken.START_ARRAY, "value is not a [time, value] pair");
    return readPointBody(p);
  }

  /** Reads {@code time, "value"]} after the opening bracket. */
  private static double[] readPointBody(JsonParser p) throws IOException {
    JsonToken t = p.nextToken();
    expect(t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT, "bad timestamp");
    double time = p.getDoubleValue();
    expect(p.nextToken() == JsonToken.VALUE_STRING, "sample value is not a string");
    double value = parseValue(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
    expect(p.nextToken() == JsonToken.END_ARRAY, "malformed [time, value] pair");
    return new double[] {time, value};
  }

  /**
   * A value read from the parser's own buffer with Jackson's FastDoubleParser, which gives the very
   * double {@link Double#parseDouble} gives ({@code ResponseParserTest}); anything it refuses, and
   * the special values, take the string path for the same result or error. At 10,000 recipes an
   * evaluation reads some 170,000 values, and the {@code [time, "value"]} pairs were 31 % of the
   * profile's samples with a string and {@link Double#parseDouble} each, 19 % now
   * (docs/PERFORMANCE.md, 2026-12-06).
   */
  static double parseValue(char[] chars, int offset, int length) {
    if (length > 0 && length <= 4 && !Character.isDigit(chars[offset + length - 1])) {
      return parseValue(new String(chars, offset, length));
    }
    try {
      return NumberInput.parseDouble(chars, offset, length, true);
    } catch (NumberFormatException e) {
      return parseValue(new String(chars, offset, length));
    }
  }

  /** Prometheus encodes values as strings, including "NaN", "+Inf" and "-Inf". */
  static double parseValue(String text) {
    switch (text) {
      case "NaN":
        return Double.NaN;
      case "+Inf":
      case "Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      default:
        try {
          return Double.parseDouble(text);
        } catch (NumberFormatException e) {
          throw new MalformedResponse("sample value \"" + abbreviate(text) + "\" is not a number");
        }
    }
  }

  private static Instant toInstant(double seconds) {
    long millis = Math.round(seconds * 1000);
    return Instant.ofEpochMilli(millis);
  }

  private static QueryResult withWarnings(QueryResult r, List<String> warnings) {
    if (warnings.isEmpty()) {
      return r;
    }
    if (r instanceof QueryResult.Vector v) {
      return new QueryResult.Vector(v.samples(), warnings);
    }
    if (r instanceof QueryResult.Matrix m) {
      return new QueryResult.Matrix(m.series(), warnings);
    }
    if (r instanceof QueryResult.Scalar s) {
      return new QueryResult.Scalar(s.time(), s.value(), warnings);
    }
    QueryResult.Text t = (QueryResult.Text) r;
    return new QueryResult.Text(t.time(), t.value(), warnings);
  }

  private static void expect(boolean condition, String problem) {
    if (!condition) {
      throw new MalformedResponse(problem);
    }
  }

  static String abbreviate(String text) {
    String oneLine = text.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= 120 ? oneLine : oneLine.substring(0, 120) + "...";
  }

  /** The body is JSON but not the Prometheus API's. */
  static final class MalformedResponse extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedResponse(String message) {
      super(message, null, false, false);
    }
  }
}
