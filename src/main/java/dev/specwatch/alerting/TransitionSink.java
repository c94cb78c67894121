package dev.specwatch.alerting;

/**
 * Where recorded transitions go once the state that produced them is saved. A sink that throws
 * leaves the transition queued (in the saved state) for the next run, so nothing is lost.
 */
public interface TransitionSink {
  void deliver(Transition transition) throws Exception;
}
