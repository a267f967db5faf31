package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The example of the top-level {@code README.md}, compiled as a user would compile it and run
 * over 127.0.0.1. The README's Java block is read from the README itself and becomes a separate
 * compilation unit in the unnamed package: exactly the block's imports, then a class whose one
 * method is the block's code. It is compiled with {@link JavaCompiler} against this module's
 * class path, so it sees the API only through its imports, and cannot use anything
 * package-private. The test fails when the block does not compile (the README drifted from the
 * API), imports anything but {@code io.iwarp4j.verbs} and {@code java.*}, or does not do what
 * its comments say; and when the heading's line count is not the block's.
 */
@Timeout(60)
class ReadmeExampleTest {
  /** The heading above the block states its length. */
  private static final Pattern HEADING = Pattern.compile("^## .* in (\\d+) lines$");
  private static final Pattern ALLOWED_IMPORT =
      Pattern.compile("^import (io\\.iwarp4j\\.verbs\\.(\\*|[A-Z]\\w*)|java\\.[\\w.]+(\\.\\*)?);$");
  private static final Path WORK = Path.of("target", "readme-example");

  @Test
  void theReadmeBlockCompilesAloneAndWritesAndReadsBackTheServersRegion() throws Exception {
    Block block = readmeBlock();
    assertTrue(!block.imports.isEmpty(), "the README's Java block shows no imports");
    for (String line : block.imports) {
      assertTrue(ALLOWED_IMPORT.matcher(line).matches(),
          "the README's example imports more than io.iwarp4j.verbs and java.*: " + line);
    }
    assertEquals(block.claimedLines, block.lines,
        "the README's heading says " + block.claimedLines + " lines, the block has "
            + block.lines);

    Path source = WORK.resolve("src").resolve("ReadmeExample.java");
    Path classes = WORK.resolve("classes");
    deleteRecursively(WORK);
    Files.createDirectories(source.getParent());
    Files.createDirectories(classes);
    Files.writeString(source, compilationUnit(block), StandardCharsets.UTF_8);

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    int status = javac.run(null, diagnostics, diagnostics, "--release", "17", "-Xlint:all",
        "-Werror", "-proc:none", "-classpath", System.getProperty("java.class.path"),
        "-d", classes.toString(), source.toString());
    assertEquals(0, status, "the README's example does not compile as shown:\n"
        + diagnostics.toString(StandardCharsets.UTF_8) + "\n" + Files.readString(source));

    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        getClass().getClassLoader())) {
      Object[] result = (Object[]) loader.loadClass("ReadmeExample").getMethod("run")
          .invoke(null);
      int n = (Integer) result[0];
      WorkCompletion wc = (WorkCompletion) result[1];
      assertEquals(1, n, "completions");
      assertTrue(wc.isSuccess(), wc::toString);
      assertEquals(WcOpcode.RDMA_READ, wc.opcode());
      assertEquals("hello", result[2]);
    }
  }

  /**
   * The block as its own source file: its imports, then its code as the body of a method that
   * hands back what the block's last comment promises.
   */
  private static String compilationUnit(Block block) {
    StringBuilder b = new StringBuilder();
    block.imports.forEach(l -> b.append(l).append('\n'));
    b.append("\npublic final class ReadmeExample {\n");
    b.append("  public static Object[] run() throws Exception {\n");
    block.code.forEach(l -> b.append("    ").append(l).append('\n'));
    b.append("    return new Object[] {n, wc[0], readBack};\n");
    b.append("  }\n}\n");
    return b.toString();
  }

  /** The first Java block after the heading that states its length. */
  private static Block readmeBlock() throws IOException {
    // Surefire runs in the module's directory (as ApiExampleTest relies on too).
    List<String> readme = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    int claimed = -1;
    int i = 0;
    for (; i < readme.size(); i++) {
      Matcher m = HEADING.matcher(readme.get(i));
      if (m.matches()) {
        claimed = Integer.parseInt(m.group(1));
        break;
      }
    }
    assertTrue(claimed > 0, "README.md has no heading '## ... in N lines' above its example");
    while (i < readme.size() && !readme.get(i).equals("```java")) {
      i++;
    }
    int start = ++i;
    while (i < readme.size() && !readme.get(i).equals("```")) {
      i++;
    }
    assertTrue(start < i && i < readme.size(), "README.md: no Java block after the heading");
    List<String> lines = readme.subList(start, i);
    List<String> imports = new ArrayList<>();
    int body = 0;
    while (body < lines.size()
        && (lines.get(body).startsWith("import ") || lines.get(body).isBlank())) {
      if (!lines.get(body).isBlank()) {
        imports.add(lines.get(body));
      }
      body++;
    }
    return new Block(imports, lines.subList(body, lines.size()), lines.size(), claimed);
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private record Block(List<String> imports, List<String> code, int lines, int claimedLines) {}
}
