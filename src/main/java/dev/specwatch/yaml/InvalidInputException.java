package dev.specwatch.yaml;

import java.util.List;
import java.util.stream.Collectors;

/** Input (config, policy, scenario) that cannot be used; carries every problem found. */
public final class InvalidInputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient List<Problem> problems;

  public InvalidInputException(List<Problem> problems) {
    super(
        problems.size()
            + (problems.size() == 1 ? " problem" : " problems")
            + ":\n"
            + problems.stream().map(Problem::toString).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  public List<Problem> problems() {
    return problems;
  }
}
