package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Launcher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The soak run, 2 minutes of it (bench/soak.sh 2): every command in a loop against a target under
 * mixed load, with sessions finished and abandoned; no failure, and the target's RSS, descriptors,
 * threads and the agent's C-heap bytes within the bounds bench/soak/Soak.java states.
 */
class SoakIT {
    @Test
    void twoMinutesOfEveryCommandLeaveNoFailureAndEveryFigureWithinItsBound() throws Exception {
        Path output = Files.createTempFile("soak", ".txt");
        ProcessBuilder soak = new ProcessBuilder(Launcher.root().resolve("bench/soak.sh").toString(), "2")
                .redirectErrorStream(true).redirectOutput(output.toFile());
        soak.environment().put("JAVA_HOME", Jdks.current().home().toString());
        Process run = soak.start();
        assertTrue(run.waitFor(6, TimeUnit.MINUTES), "the 2-minute soak ended");
        List<String> lines = Files.readAllLines(output);
        String all = String.join("\n", lines);
        assertEquals(0, run.exitValue(), all);
        assertTrue(lines.stream().filter(l -> l.matches(" *[0-2] +[\\d.]+ +\\d+ +\\d+ +\\d+ +\\d+ +0 .*")).count() == 3,
                "a row for minutes 0, 1 and 2, none with a failure:\n" + all);
        assertTrue(lines.get(lines.size() - 1).matches("\\d+ commands, 0 failures: PASS"), all);
        Files.delete(output);
    }
}
