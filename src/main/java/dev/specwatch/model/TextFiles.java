package dev.specwatch.model;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;

/**
 * Reads the small text files a user points specwatch at (the config, policies, recipes, secret and
 * CA files) so that no such path can hang it or exhaust its memory: only regular files (a FIFO
 * would block, {@code /dev/zero} never ends), at most {@link #MAX_BYTES}, strict UTF-8, and every
 * failure as a {@link Unreadable} with a reason a person can act on (a symlink loop, permission
 * denied, …), never a raw exception text.
 */
public final class TextFiles {
  /** Far more than any config, policy or recipe needs. */
  public static final long MAX_BYTES = 4L << 20;

  /**
   * Why a file cannot be read: {@link #getMessage()} is the reason alone, e.g. "a symlink loop".
   */
  public static final class Unreadable extends IOException {
    private static final long serialVersionUID = 1L;

    public Unreadable(String reason) {
      super(reason);
    }
  }

  private TextFiles() {}

  public static String read(Path file) throws Unreadable {
    BasicFileAttributes attrs;
    try {
      attrs = Files.readAttributes(file, BasicFileAttributes.class); // follows symlinks
    } catch (NoSuchFileException e) {
      throw new Unreadable(
          Files.isSymbolicLink(file)
              ? "a broken symlink: its target does not exist"
              : "file not found");
    } catch (AccessDeniedException e) {
      throw new Unreadable("permission denied");
    } catch (FileSystemException e) {
      throw new Unreadable(reason(e));
    } catch (IOException e) {
      throw new Unreadable(String.valueOf(e.getMessage()));
    }
    if (attrs.isDirectory()) {
      throw new Unreadable("is a directory, not a file");
    }
    if (!attrs.isRegularFile()) {
      throw new Unreadable("not a regular file (a device, FIFO or socket): it is not read");
    }
    if (attrs.size() > MAX_BYTES) {
      throw new Unreadable(
          attrs.size()
              + " bytes, more than the "
              + (MAX_BYTES >> 20)
              + " MiB a text file here may have");
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes((int) MAX_BYTES + 1); // the file may have grown since
    } catch (AccessDeniedException e) {
      throw new Unreadable("permission denied");
    } catch (FileSystemException e) {
      throw new Unreadable(reason(e));
    } catch (IOException e) {
      throw new Unreadable(String.valueOf(e.getMessage()));
    }
    if (bytes.length > MAX_BYTES) {
      throw new Unreadable("more than the " + (MAX_BYTES >> 20) + " MiB a text file here may have");
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new Unreadable("the file is not UTF-8 text");
    }
  }

  private static String reason(FileSystemException e) {
    String r = e.getReason() == null ? "" : e.getReason();
    String lower = r.toLowerCase(Locale.ROOT);
    if (lower.contains("too many levels of symbolic links")) {
      return "a symlink loop";
    }
    return r.isEmpty() ? e.getClass().getSimpleName() : r;
  }
}
