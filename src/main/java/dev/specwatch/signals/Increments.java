package dev.specwatch.signals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Counter increases of one recipe over the last evaluation step (not the rate window): the evidence
 * sequential tests add up step by step. Null components: no sample (no series, or the step is
 * shorter than two scrapes).
 *
 * @param acceptedPerPosition one entry per draft position 0..k-1
 */
public record Increments(
    Duration step,
    Double draftTokens,
    Double acceptedTokens,
    Double drafts,
    List<Double> acceptedPerPosition) {
  public Increments {
    acceptedPerPosition = Collections.unmodifiableList(new ArrayList<>(acceptedPerPosition));
  }
}
