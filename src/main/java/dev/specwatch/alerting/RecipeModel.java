package dev.specwatch.alerting;

import dev.specwatch.detect.NoiseModel;
import java.time.Duration;
import java.time.Instant;

/**
 * What was learned of one recipe's normal acceptance, or why nothing could be.
 *
 * @param model null while there is too little history (see {@code status})
 * @param status for people: "learned from 7d", "learning: 6h of active history, needs 24h"
 * @param attemptedAt when learning last ran
 * @param step the evaluation step the model describes (a new step means learning again)
 */
public record RecipeModel(NoiseModel model, String status, Instant attemptedAt, Duration step) {}
