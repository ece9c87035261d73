package dev.jvmticli.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** The JDK's own jstack, the truth a test holds a dump to. */
public final class Jstack {
    private Jstack() {
    }

    /** {@code jstack -l pid} of the target's JDK: its output, once it ended with 0 within 60 s. */
    public static String locked(Jdks.Jdk jdk, long pid) throws Exception {
        Process process = new ProcessBuilder(jdk.home().resolve("bin/jstack").toString(), "-l", Long.toString(pid))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "jstack -l did not end in 60 s");
        assertEquals(0, process.exitValue(), "jstack -l");
        return new String(out, StandardCharsets.UTF_8);
    }
}
