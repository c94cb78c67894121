package dev.specwatch.cli;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * A Prometheus rule file as a prometheus-operator {@code PrometheusRule}
 * (monitoring.coreos.com/v1): the same {@code groups}, under {@code spec}, so that Kubernetes users
 * apply what everyone else puts in {@code rule_files}. The file's leading comments stay on top;
 * every other line moves two spaces in (block scalars keep their relative indentation).
 */
final class PrometheusRules {
  /** A Kubernetes name: lower-case RFC 1123 subdomain. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

  /** A label key: an optional DNS prefix and a name of up to 63 characters. */
  private static final Pattern LABEL_KEY =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

  /** A label value: empty, or up to 63 characters. */
  private static final Pattern LABEL_VALUE =
      Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");

  private PrometheusRules() {}

  static String wrap(String ruleFile, String name, String namespace, Map<String, String> labels) {
    require(NAME.matcher(name).matches(), "--name", name);
    if (namespace != null) {
      require(NAME.matcher(namespace).matches(), "--namespace", namespace);
    }
    labels.forEach(
        (k, v) -> {
          require(LABEL_KEY.matcher(k).matches(), "--label key", k);
          require(LABEL_VALUE.matcher(v).matches(), "--label value", v);
        });
    StringBuilder out = new StringBuilder();
    String[] lines = ruleFile.split("\n", -1);
    int i = 0;
    while (i < lines.length && lines[i].startsWith("#")) {
      out.append(lines[i++]).append('\n');
    }
    out.append("apiVersion: monitoring.coreos.com/v1\n")
        .append("kind: PrometheusRule\n")
        .append("metadata:\n")
        .append("  name: ")
        .append(name)
        .append('\n');
    if (namespace != null) {
      out.append("  namespace: ").append(namespace).append('\n');
    }
    out.append("  labels:\n").append("    app.kubernetes.io/name: specwatch\n");
    labels.forEach((k, v) -> out.append("    ").append(k).append(": \"").append(v).append("\"\n"));
    out.append("spec:\n");
    for (; i < lines.length; i++) {
      if (i == lines.length - 1 && lines[i].isEmpty()) {
        break;
      }
      out.append(lines[i].isEmpty() ? "" : "  " + lines[i]).append('\n');
    }
    return out.toString();
  }

  private static void require(boolean ok, String what, String value) {
    if (!ok) {
      throw new UsageException(
          what
              + " '"
              + value
              + "' is not a valid Kubernetes name (lower-case letters, digits, '-', '.')");
    }
  }
}
