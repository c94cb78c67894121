package dev.specwatch.alerting;

import dev.specwatch.store.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every transition, one JSON object per line, in {@code <state.dir>/history.jsonl}: what the weekly
 * digest counts (alerts fired, firing time). Append-only; a torn last line is skipped.
 */
public final class TransitionHistory implements History {
  private static final Logger logger = LoggerFactory.getLogger(TransitionHistory.class);
  private final Path file;

  public TransitionHistory(Path stateDir) {
    this.file = stateDir.resolve("history.jsonl");
  }

  @Override
  public synchronized void append(List<Transition> transitions) throws IOException {
    if (transitions.isEmpty()) {
      return;
    }
    StringBuilder lines = new StringBuilder();
    for (Transition t : transitions) {
      lines
          .append(
              DurableFiles.JSON
                  .writer()
                  .without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                  .writeValueAsString(t))
          .append('\n');
    }
    Files.createDirectories(file.getParent());
    try (FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      channel.write(ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.UTF_8)));
      channel.force(true);
    }
  }

  /** The transition with this sequence number, if the history holds it. */
  public synchronized Optional<Transition> bySequence(long sequence) {
    try {
      return all().stream().filter(t -> t.sequence() == sequence).reduce((a, b) -> b);
    } catch (IOException e) {
      logger.warn("cannot read {}: {}", file, e.getMessage());
      return Optional.empty();
    }
  }

  /** The last transition of each alert id, in history order. */
  public synchronized Map<String, Transition> latestByAlert() throws IOException {
    Map<String, Transition> out = new LinkedHashMap<>();
    for (Transition t : all()) {
      out.put(t.alertId(), t);
    }
    return out;
  }

  private List<Transition> all() throws IOException {
    return between(Instant.MIN, Instant.MAX);
  }

  /** Transitions at or after {@code from} and before {@code to}. */
  @Override
  public synchronized List<Transition> between(Instant from, Instant to) throws IOException {
    List<Transition> out = new ArrayList<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return out;
    }
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      try {
        Transition t = DurableFiles.JSON.readValue(line, Transition.class);
        if (!t.at().isBefore(from) && t.at().isBefore(to)) {
          out.add(t);
        }
      } catch (IOException e) {
        logger.warn("skipping an unreadable line of {}", file);
      }
    }
    return out;
  }
}
