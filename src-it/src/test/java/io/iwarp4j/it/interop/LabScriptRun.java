package io.iwarp4j.it.interop;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of a siw lab script (the interop suite, the NVMe-oF interop), by the convention both
 * follow: the script writes {@code suite.log} and {@code results.tsv} (one row per line, fields
 * separated by tabs) into its output directory and exits 3 for an infrastructure problem (its
 * log names it on an {@code INFRA:} line), 2 for a setup error, else with its verdict. An
 * infrastructure problem skips the test, or fails it under {@code CI} when a tool is missing
 * (CI must have every tool).
 *
 * @param log the script's whole output
 * @param exitStatus the script's exit status (not 2 or 3)
 * @param rows the lines of {@code results.tsv} that are not blank, split at tabs
 */
record LabScriptRun(String log, int exitStatus, List<String[]> rows) {

  /**
   * Starts {@code pb} (whose output goes to {@code out/suite.log}), waits at most
   * {@code minutes}, prints the log and reads the results; {@code what} names the run in the
   * messages ("the interop suite").
   */
  static LabScriptRun run(ProcessBuilder pb, Path out, long minutes, String what)
      throws IOException, InterruptedException {
    Process p = pb.start();
    if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      fail(what + " did not finish within " + minutes + " minutes; see " + out);
    }
    String log = Files.readString(out.resolve("suite.log"), StandardCharsets.UTF_8);
    System.out.println(log);
    int rc = p.exitValue();
    if (rc == 3) {
      String why = what + " SKIPPED, infrastructure problem (not protocol): "
          + lastLine(log, "INFRA:");
      System.err.println("************ " + why);
      if (System.getenv("CI") != null && log.contains("is not installed")) {
        fail(why + " (CI must have every tool)");
      }
      assumeTrue(false, why);
    }
    assertFalse(rc == 2, "setup error: " + log);
    Path tsv = out.resolve("results.tsv");
    assertTrue(Files.exists(tsv), "no results.tsv; see " + out);
    List<String[]> rows = Files.readAllLines(tsv, StandardCharsets.UTF_8).stream()
        .filter(l -> !l.isBlank()).map(l -> l.split("\t", -1)).toList();
    return new LabScriptRun(log, rc, rows);
  }

  /** The last line of {@code log} holding {@code marker}, from the marker on. */
  static String lastLine(String log, String marker) {
    String found = "see the suite log";
    for (String line : log.split("\n")) {
      if (line.contains(marker)) {
        found = line.substring(line.indexOf(marker));
      }
    }
    return found;
  }
}
