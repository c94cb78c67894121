package dev.specwatch.cli;

import dev.specwatch.recipes.PolicyWriter;
import dev.specwatch.recipes.Recipe;
import dev.specwatch.recipes.RecipeReader;
import dev.specwatch.yaml.InvalidInputException;
import dev.specwatch.yaml.Problem;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "policies",
    mixinStandardHelpOptions = true,
    subcommands = {PoliciesCommand.Import.class, SuggestCommand.class},
    description = {"Creates and tunes policies from spark-vllm-docker recipes (docs/RECIPES.md)."})
final class PoliciesCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description = {
        "Writes one policy per spark-vllm-docker recipe that uses speculative decoding.",
        "Each policy is <recipe file stem>.yaml with the recipe's model name and"
            + " num_speculative_tokens; a re-import updates only those and keeps every other"
            + " line. Recipes without speculative decoding are listed as skipped; a broken recipe"
            + " is named with file:line and makes the exit code 2 (the others are still written)."
      })
  static final class Import implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--recipes",
        required = true,
        paramLabel = "DIR",
        description = "The directory of recipe files (*.yaml).")
    Path recipes;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "DIR",
        description = "The policies directory (the config's `policies:`).")
    Path out;

    @Option(
        names = "--job",
        paramLabel = "NAME",
        description = "Also match this Prometheus job label (the scrape job of the recipe's port).")
    String job;

    @Option(names = "--dry-run", description = "Print what would change as a diff; write nothing.")
    boolean dryRun;

    @Override
    public Integer call() throws IOException {
      PrintWriter o = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      if (!Files.isDirectory(recipes)) {
        throw new UsageException("--recipes " + recipes + " is not a directory");
      }
      RecipeFiles found = RecipeFiles.find(recipes);
      List<Path> files = found.files();
      found.problems().forEach(err::println);
      if (!dryRun) {
        Files.createDirectories(out);
      }
      int broken = found.problems().size();
      int written = 0;
      for (Path file : files) {
        if (found.colliding().contains(file)) {
          continue; // counted and reported with the problems
        }
        Recipe recipe;
        try {
          recipe = RecipeReader.read(file);
        } catch (InvalidInputException e) {
          broken++;
          for (Problem p : e.problems()) {
            err.println(p);
          }
          continue;
        }
        recipe.warnings().forEach(err::println);
        if (recipe.speculation().isEmpty()) {
          o.printf("skipped %s: no speculative decoding%n", file);
          continue;
        }
        Path target = out.resolve(recipe.stem() + ".yaml");
        String recipePath =
            out.toAbsolutePath()
                .normalize()
                .relativize(file.toAbsolutePath().normalize())
                .toString();
        String before =
            Files.exists(target) ? Files.readString(target, StandardCharsets.UTF_8) : "";
        String after;
        try {
          after =
              before.isEmpty()
                  ? PolicyWriter.create(recipe, Optional.ofNullable(job), recipePath)
                  : PolicyWriter.update(before, target.toString(), recipe, recipePath);
        } catch (IllegalArgumentException e) {
          broken++;
          err.println(target + ":1:1: " + e.getMessage());
          continue;
        }
        Recipe.Speculation s = recipe.speculation().get();
        String what = before.isEmpty() ? "created" : before.equals(after) ? "unchanged" : "updated";
        o.printf(
            "%s %s: model_name %s, k=%d, %s (%s)%n",
            dryRun && !what.equals("unchanged") ? "would have " + what : what,
            target,
            recipe.modelName(),
            s.k(),
            s.method(),
            s.shape());
        if (dryRun) {
          o.print(PolicyWriter.diff(target.toString(), before, after));
        } else if (!before.equals(after)) {
          Files.writeString(target, after, StandardCharsets.UTF_8);
          written++;
        }
      }
      o.printf(
          "%d recipe file(s), %d polic%s written%s%n",
          files.size(),
          written,
          written == 1 ? "y" : "ies",
          broken > 0 ? ", " + broken + " broken (see above)" : "");
      o.flush();
      err.flush();
      return broken > 0 ? ExitCodes.INVALID_INPUT : ExitCodes.OK;
    }
  }
}
