package dev.jvmticli.attach;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TargetProcessTest {
    private static final String LIBJVM = "7fa6fb200000-7fa6fb451000 r--p 00000000 fe:00 328261      /usr/lib/jvm/java-17/lib/server/libjvm.so\n";
    private static final String OTHER = "7fa6328c6000-7fa6328c9000 r--p 00000000 fe:00 2146813     /tmp/lib/libjvm.so.bak\n";

    /** A stream that gives at most chunk bytes a read, as /proc does a page at a time. */
    private static InputStream chunked(String text, int chunk) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII)) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
    }

    @Test
    void aLineEndingInLibjvmIsFoundWhereverTheReadsCutIt() throws IOException {
        String before = OTHER.repeat(800); // past the 64 KiB of one read
        for (int cut : new int[] {1, 7, 4096, 65536}) {
            assertTrue(TargetProcess.mapsLibjvm(chunked(before + LIBJVM + OTHER, cut)), "reads of " + cut);
            assertTrue(TargetProcess.mapsLibjvm(chunked(before + LIBJVM, cut)), "at the end, reads of " + cut);
            assertFalse(TargetProcess.mapsLibjvm(chunked(before + OTHER, cut)), "reads of " + cut);
        }
        assertFalse(TargetProcess.mapsLibjvm(chunked("", 10)));
        assertFalse(TargetProcess.mapsLibjvm(chunked("/libjvm.so", 10)), "not a whole line");
    }

    @Test
    void thisJvmIsAJvmAndSleepIsNot() throws Exception {
        assertEquals(ProcessHandle.current().pid(), TargetProcess.of(ProcessHandle.current().pid()).pid());
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            CliFailure failure = assertThrows(CliFailure.class, () -> TargetProcess.of(sleep.pid()));
            assertEquals(ExitCode.NOT_A_JVM, failure.exitCode());
        } finally {
            sleep.destroy();
            sleep.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
