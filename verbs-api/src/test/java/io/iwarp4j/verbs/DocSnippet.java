package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The code between two marker comments of a file, for tests that keep docs and code in step. */
final class DocSnippet {
  private DocSnippet() {
  }

  /** The lines strictly between the markers, with their common indentation removed. */
  static List<String> between(Path file, String beginMarker, String endMarker)
      throws IOException {
    List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
    int begin = -1;
    int end = -1;
    for (int i = 0; i < all.size(); i++) {
      String t = all.get(i).trim();
      if (t.equals(beginMarker) && begin < 0) {
        begin = i;
      } else if (t.equals(endMarker) && begin >= 0 && end < 0) {
        end = i;
      }
    }
    assertTrue(begin >= 0 && end > begin, "markers in " + file);
    List<String> lines = new ArrayList<>(all.subList(begin + 1, end));
    int indent = Integer.MAX_VALUE;
    for (String l : lines) {
      if (!l.isBlank()) {
        indent = Math.min(indent, l.length() - l.stripLeading().length());
      }
    }
    List<String> out = new ArrayList<>();
    for (String l : lines) {
      out.add(l.isBlank() ? "" : l.substring(indent).stripTrailing());
    }
    return out;
  }
}
