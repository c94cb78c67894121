package dev.specwatch.store;

import java.nio.file.Path;

/** Prints what the state directory probe says of {@code args[0]}: for a child JVM under limits. */
public final class ProbeMain {
  private ProbeMain() {}

  public static void main(String[] args) {
    StateHealth health = new StateHealth(Path.of(args[0]));
    System.out.println("writable=" + health.probe());
    System.out.println("problem=" + health.problem().orElse(""));
  }
}
