package dev.specwatch.signals;

import java.time.Duration;

/**
 * One query of a group: a signal over the current window, over a baseline ending where the window
 * starts, or (step signals) over the last evaluation step.
 */
record QueryKey(Signal signal, Duration baseline) {}
