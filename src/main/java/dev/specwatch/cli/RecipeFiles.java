package dev.specwatch.cli;

import java.io.IOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The recipe files under a spark-vllm-docker {@code recipes/} directory, subdirectories included
 * ({@code recipes/4x-spark-cluster/…} upstream), in path order. Hidden directories are skipped; a
 * symlink loop, an unreadable directory and two recipes that would make the same policy (one file
 * name in two folders) are problems, each a line {@code file:line:col: key: message}.
 *
 * @param files every {@code *.yaml} / {@code *.yml} regular file found
 * @param colliding the files whose policy name another file also makes (not imported)
 * @param problems what could not be listed or imported, in path order
 */
record RecipeFiles(List<Path> files, Set<Path> colliding, List<String> problems) {
  static RecipeFiles find(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Files.walkFileTree(
        root,
        EnumSet.of(FileVisitOption.FOLLOW_LINKS),
        Integer.MAX_VALUE,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            return !dir.equals(root) && dir.getFileName().toString().startsWith(".")
                ? FileVisitResult.SKIP_SUBTREE
                : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            String name = file.getFileName().toString();
            if (name.endsWith(".yaml") || name.endsWith(".yml")) {
              if (attrs.isRegularFile()) {
                files.add(file);
              } else if (attrs.isSymbolicLink()) {
                // FOLLOW_LINKS hands over the link itself when its target is gone
                problems.add(file + ":1:1: a broken symlink: its target does not exist");
              } else if (!attrs.isDirectory()) {
                problems.add(file + ":1:1: not a regular file (a device, FIFO or socket)");
              }
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            if (e instanceof FileSystemLoopException) {
              problems.add(file + ":1:1: a symlink loop: it leads back to a folder above it");
            } else {
              problems.add(file + ":1:1: cannot be read: " + reason(e));
            }
            return FileVisitResult.CONTINUE;
          }
        });
    files.sort(null);
    Map<String, List<Path>> byStem = new TreeMap<>();
    for (Path f : files) {
      byStem
          .computeIfAbsent(
              f.getFileName().toString().replaceFirst("\\.ya?ml$", ""), k -> new ArrayList<>())
          .add(f);
    }
    Set<Path> colliding = new HashSet<>();
    byStem.forEach(
        (stem, same) -> {
          if (same.size() > 1) {
            colliding.addAll(same);
            for (Path f : same) {
              List<String> others =
                  same.stream().filter(o -> !o.equals(f)).map(Path::toString).toList();
              problems.add(
                  f
                      + ":1:1: policy "
                      + stem
                      + " would also come from "
                      + String.join(", ", others)
                      + ": rename one, or give --recipes only the folder you deploy from;"
                      + " neither is imported");
            }
          }
        });
    problems.sort(null);
    return new RecipeFiles(List.copyOf(files), Set.copyOf(colliding), List.copyOf(problems));
  }

  private static String reason(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
