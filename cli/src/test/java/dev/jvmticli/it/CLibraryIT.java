package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that looks like a JVM (it maps a libjvm.so) on a C library the agent cannot load on
 * gets exit code 15 and one line naming it, and nothing is sent to it: no trigger file, no
 * SIGQUIT (which would end these processes, as they catch no signal). The processes are
 * native/test/fake_jvm.c, built with musl-gcc, and statically with glibc mapping a file named as
 * glibc 2.12's libc, or as a later glibc's (libc.so.6) whose bytes hold no GLIBC_2.17 version. The
 * glibc that loads the agent is tried by every other test (2.36 here) and by DebianRootsIT (2.31, 2.41).
 */
class CLibraryIT {
    private static final Path FAKES = Path.of(System.getProperty("user.dir")).resolve("../native/target/test").normalize();

    @TempDir
    Path dir;

    @Test
    void aJvmOnMuslGetsExitCode13AndOneLineAndNothingIsSent() throws Exception {
        Path libjvm = file("libjvm.so", "not a JVM");
        assertRefused(List.of(FAKES.resolve("fake_jvm_musl").toString(), libjvm.toString()), "runs on musl libc (it maps /");
    }

    @Test
    void aJvmOnAGlibcOlderThan217ByItsLibrarysNameGetsExitCode13AndOneLineAndNothingIsSent() throws Exception {
        Path libjvm = file("libjvm.so", "not a JVM");
        Path oldLibc = file("libc-2.12.so", "GLIBC_2.2.5\0GLIBC_2.12\0");
        assertRefused(List.of(FAKES.resolve("fake_jvm_static").toString(), libjvm.toString(), oldLibc.toString()),
                "runs on glibc 2.12 (it maps " + oldLibc + ")");
    }

    /** glibc 2.34 and later name the library libc.so.6 alone: its symbol versions tell. */
    @Test
    void aJvmOnALibcSo6WithoutGlibc217SymbolsGetsExitCode13AndOneLineAndNothingIsSent() throws Exception {
        Path libjvm = file("libjvm.so", "not a JVM");
        Path oldLibc = file("libc.so.6", "GLIBC_2.2.5\0GLIBC_2.16\0GLIBC_2.170\0");
        assertRefused(List.of(FAKES.resolve("fake_jvm_static").toString(), libjvm.toString(), oldLibc.toString()),
                "runs on glibc (its " + oldLibc + " has no GLIBC_2.17 symbols)");
    }

    private void assertRefused(List<String> command, String why) throws Exception {
        Process fake = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            String ready = new BufferedReader(new InputStreamReader(fake.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertEquals("READY " + fake.pid(), ready);
            Result result = CliRun.run("threads", Long.toString(fake.pid()));
            assertEquals(15, result.exit(), result.toString());
            assertEquals(1, result.err().lines().count(), result.err());
            assertTrue(result.err().contains(why) && result.err().contains("nothing was loaded"), result.err());
            assertTrue(fake.isAlive(), "no SIGQUIT was sent");
            assertFalse(Files.exists(dir.resolve(".attach_pid" + fake.pid())), "no trigger file in its working directory");
            assertFalse(Files.exists(Path.of("/tmp/.attach_pid" + fake.pid())), "no trigger file in /tmp");
        } finally {
            fake.destroyForcibly();
            fake.waitFor();
        }
    }

    private Path file(String name, String content) throws Exception {
        List<String> lines = new ArrayList<>(List.of(content));
        return Files.write(dir.resolve(name), lines);
    }
}
