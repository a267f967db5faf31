package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The library as JPMS modules: an application module ({@code src/test/module-demo}, requiring
 * only {@code io.iwarp4j.verbs}) is compiled against the five library jars, Netty and SLF4J on
 * the module path and run in a separate JVM with {@code java --module-path ... -m}: it RDMA
 * Writes and Reads 64 KiB over 127.0.0.1 with every octet verified and finds the internals
 * closed to it at run time. A second module ({@code src/test/module-demo-illegal}) that imports
 * {@code io.iwarp4j.verbs.internal} must fail to compile, and so must modules that import a class
 * of {@code io.iwarp4j.mpa}, {@code io.iwarp4j.ddp.mem} or {@code io.iwarp4j.rdmap}. The
 * README's example, with exactly its imports, compiles in a module that requires only
 * {@code io.iwarp4j.verbs}.
 */
@Timeout(300)
class ModulePathDemoIT {
  private static final Path SOURCES = Paths.get("src", "test");
  private static final Path WORK = Paths.get("target", "module-path-it");
  private static final long RUN_SECONDS = 180;

  /**
   * What a module-path application needs: our five modules, every Netty module they pull in
   * (all of Netty's jars are named modules), SLF4J and a binding.
   */
  private static final Pattern MODULE_JARS = Pattern.compile(
      "(wire|mpa-core|ddp-core|rdmap-core|verbs-api)-[^/]*(?<!-tests)\\.jar"
          + "|netty-[a-z0-9-]+-4\\.[^/]*\\.jar"
          + "|slf4j-(api|simple)-[^/]*\\.jar");

  @Test
  void demoRunsOnTheModulePathAndInternalsStayClosed() throws Exception {
    String modulePath = libraryModulePath();

    Path classes = WORK.resolve("classes");
    CompileResult demo = compile("module-demo", "io.iwarp4j.demo", modulePath, classes);
    assertTrue(demo.ok, "the demo module did not compile:\n" + demo.output);

    CompileResult illegal = compile("module-demo-illegal", "io.iwarp4j.illegal", modulePath,
        WORK.resolve("illegal-classes"));
    assertFalse(illegal.ok, "a module importing io.iwarp4j.verbs.internal compiled");
    assertTrue(illegal.output.contains("package io.iwarp4j.verbs.internal is not visible")
            && illegal.output.contains("does not export it"),
        "javac refused the illegal module for another reason:\n" + illegal.output);

    // The protocol layers: an application that requires io.iwarp4j.verbs does not read them.
    for (String type : List.of("io.iwarp4j.mpa.MpaSettings", "io.iwarp4j.ddp.mem.AccessFlags",
        "io.iwarp4j.rdmap.RdmapEndpoint")) {
      String pkg = type.substring(0, type.lastIndexOf('.'));
      Path tree = WORK.resolve("lower-src-" + pkg);
      writeModule(tree, "io.iwarp4j.lower", "import " + type + ";\n",
          "  public static Class<?> lower() {\n    return "
              + type.substring(type.lastIndexOf('.') + 1) + ".class;\n  }\n");
      CompileResult lower = compile(tree, "io.iwarp4j.lower", modulePath,
          WORK.resolve("lower-classes"));
      assertFalse(lower.ok, "a module requiring only io.iwarp4j.verbs imported " + type);
      assertTrue(lower.output.contains("package " + pkg + " is not visible")
              && lower.output.contains("does not read it"),
          "javac refused the import of " + type + " for another reason:\n" + lower.output);
    }

    // The README's example as a user's module would hold it: its imports, its code.
    Path readmeTree = WORK.resolve("readme-src");
    ReadmeBlock block = ReadmeBlock.read(Paths.get("..", "README.md"));
    writeModule(readmeTree, "io.iwarp4j.readme", String.join("\n", block.imports()) + "\n",
        "  public static void run() throws Exception {\n    "
            + String.join("\n    ", block.code()) + "\n  }\n");
    CompileResult readme = compile(readmeTree, "io.iwarp4j.readme", modulePath,
        WORK.resolve("readme-classes"));
    assertTrue(readme.ok, "the README's example does not compile in a module that requires only"
        + " io.iwarp4j.verbs:\n" + readme.output);

    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Dio.netty.leakDetection.level=paranoid");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    if (Runtime.version().feature() >= 24) {
      cmd.add("--sun-misc-unsafe-memory-access=allow"); // as docs/configuration.md advises
    }
    cmd.add("--module-path");
    cmd.add(classes.toAbsolutePath() + File.pathSeparator + modulePath);
    // The epoll native library is a module nothing requires: name it, as users must.
    cmd.add("--add-modules");
    cmd.add("io.netty.transport.epoll.linux.x86_64");
    cmd.add("-m");
    cmd.add("io.iwarp4j.demo/io.iwarp4j.demo.ModulePathDemo");
    Process process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Thread reader = drain(process.getInputStream(), out);
    boolean exited = process.waitFor(RUN_SECONDS, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
    reader.join(TimeUnit.SECONDS.toMillis(30));
    String output = out.toString(StandardCharsets.UTF_8);
    System.out.println("ModulePathDemoIT: " + String.join(" ", cmd) + "\n" + output);

    assertTrue(exited, "the demo did not exit within " + RUN_SECONDS + " s:\n" + output);
    assertEquals(0, process.exitValue(), "the demo failed:\n" + output);
    assertTrue(output.contains("verbs API module: io.iwarp4j.verbs, demo module: io.iwarp4j.demo"),
        "not run as named modules:\n" + output);
    assertTrue(output.contains("transport: EPOLL"),
        "epoll was not loaded from the module path:\n" + output);
    assertTrue(output.contains("RDMA Write and Read of 65536 octets verified"), output);
    assertTrue(output.contains("checked: io.iwarp4j.verbs.internal is not exported"), output);
    assertTrue(output.contains("checked: io.iwarp4j.rdmap is not exported to us"), output);
    for (String layer : List.of("io.iwarp4j.mpa", "io.iwarp4j.ddp", "io.iwarp4j.rdmap")) {
      assertTrue(output.contains("checked: " + layer + " is not read by us"), output);
      assertTrue(output.contains("checked: no package of " + layer + " is exported to us"),
          output);
    }
    assertTrue(output.contains("internal package refused: "), output);
    assertTrue(output.contains("module-path demo OK"), output);
    assertFalse(output.contains("LEAK:"), "Netty reported a leak:\n" + output);
  }

  /** The library's jars (or, in an IDE, class directories) from this test's class path. */
  private static String libraryModulePath() {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = Paths.get(entry).getFileName().toString();
      if (MODULE_JARS.matcher(name).matches()) {
        entries.add(entry);
      }
    }
    for (String module : List.of("wire", "mpa-core", "ddp-core", "rdmap-core", "verbs-api",
        "netty-transport-native-epoll", "slf4j-api")) {
      assertTrue(entries.stream().anyMatch(e -> Paths.get(e).getFileName().toString()
              .startsWith(module + "-")),
          module + " is not on the test class path as a jar (run with -am verify): " + entries);
    }
    return String.join(File.pathSeparator, entries);
  }

  /** A one-class module {@code name} requiring only io.iwarp4j.verbs, under {@code tree}. */
  private static void writeModule(Path tree, String name, String imports, String members)
      throws IOException {
    deleteRecursively(tree);
    Path dir = tree.resolve(name).resolve(name.replace('.', File.separatorChar));
    Files.createDirectories(dir);
    Files.writeString(tree.resolve(name).resolve("module-info.java"),
        "module " + name + " {\n  requires io.iwarp4j.verbs;\n}\n");
    Files.writeString(dir.resolve("Example.java"), "package " + name + ";\n\n" + imports
        + "\npublic final class Example {\n  private Example() {}\n\n" + members + "}\n");
  }

  private static CompileResult compile(String tree, String module, String modulePath, Path out)
      throws IOException {
    return compile(SOURCES.resolve(tree), module, modulePath, out);
  }

  private static CompileResult compile(Path tree, String module, String modulePath, Path out)
      throws IOException {
    // javac --module skips sources whose classes in -d are newer: always start empty.
    deleteRecursively(out);
    Files.createDirectories(out);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> args = new ArrayList<>(List.of("--release", "17", "-Xlint:all", "-Werror",
        "--module-source-path", tree.toString(),
        "--module-path", modulePath, "-d", out.toString(), "--module", module));
    StringWriter text = new StringWriter();
    PrintWriter writer = new PrintWriter(text);
    boolean ok = javac.getTask(writer, null, null, args, null, null).call();
    writer.flush();
    return new CompileResult(ok, text.toString());
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

  private static Thread drain(InputStream in, ByteArrayOutputStream out) {
    Thread t = new Thread(() -> {
      try {
        in.transferTo(out);
      } catch (IOException e) {
        out.writeBytes(("\n[reading the demo's output failed: " + e + "]").getBytes(
            StandardCharsets.UTF_8));
      }
    }, "module-path-demo-output");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private record CompileResult(boolean ok, String output) {}

  /** The README's Java block: its import lines, then the rest (ReadmeExampleTest's reading). */
  private record ReadmeBlock(List<String> imports, List<String> code) {
    static ReadmeBlock read(Path readme) throws IOException {
      List<String> lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
      int start = lines.indexOf("```java") + 1;
      assertTrue(start > 0, "README.md has no Java block");
      int end = lines.subList(start, lines.size()).indexOf("```") + start;
      List<String> imports = new ArrayList<>();
      List<String> code = new ArrayList<>();
      for (String line : lines.subList(start, end)) {
        if (line.startsWith("import ")) {
          imports.add(line);
        } else if (!(code.isEmpty() && line.isBlank())) {
          code.add(line);
        }
      }
      return new ReadmeBlock(imports, code);
    }
  }
}
