package dev.jvmticli.attach;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C library a target runs on, as its maps name it, checked before the agent is loaded: the
 * agent is linked against glibc and needs no symbol versioned later than {@link #BASELINE}, so
 * a target on musl (Alpine), or on an older glibc, would refuse it with a loader's error after
 * the attach. It gets one line saying why instead, and nothing is sent to it.
 */
public final class CLibrary {
    /** The oldest glibc the agent loads on (native/src/glibc_compat.h, checked by the build). */
    public static final String BASELINE = "2.17";
    private static final byte[] BASELINE_VERSION = ("GLIBC_" + BASELINE + "\0").getBytes(StandardCharsets.US_ASCII);
    /**
     * musl's dynamic loader, which is also its C library: /lib/ld-musl-x86_64.so.1 (Alpine), or the
     * file that link names elsewhere, /usr/lib/x86_64-linux-musl/libc.so (Debian's musl).
     */
    private static final Pattern MUSL = Pattern.compile(" (/\\S*/(?:ld-musl-[^/\\s]+|[^/\\s]+-linux-musl/libc\\.so))$", Pattern.MULTILINE);
    /** glibc's C library: libc.so.6, or libc-2.NN.so before glibc 2.34 named its files alike. */
    private static final Pattern GLIBC = Pattern.compile(" (/\\S*/libc(?:-(\\d+\\.\\d+))?\\.so(?:\\.6)?)$", Pattern.MULTILINE);

    private CLibrary() {
    }

    /** Fails with {@link ExitCode#UNSUPPORTED_C_LIBRARY} when the target's C library cannot load the agent. */
    public static void requireSupported(TargetProcess target) {
        String maps;
        try {
            maps = Files.readString(Path.of("/proc", Long.toString(target.pid()), "maps"), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return; // unreadable maps were judged when the target was found; the loader will say
        }
        Matcher musl = MUSL.matcher(maps);
        if (musl.find()) {
            throw new CliFailure(ExitCode.UNSUPPORTED_C_LIBRARY, "JVM " + target.pid() + " runs on musl libc (it maps " + musl.group(1)
                    + "), and the agent needs glibc " + BASELINE + " or later: nothing was loaded");
        }
        Matcher glibc = GLIBC.matcher(maps);
        if (glibc.find() && (glibc.group(2) == null ? !definesBaseline(target.root(), glibc.group(1)) : olderThanBaseline(glibc.group(2)))) {
            String version = glibc.group(2) == null ? "" : " " + glibc.group(2);
            String evidence = glibc.group(2) == null ? " (its " + glibc.group(1) + " has no GLIBC_" + BASELINE + " symbols)" : " (it maps " + glibc.group(1) + ")";
            throw new CliFailure(ExitCode.UNSUPPORTED_C_LIBRARY, "JVM " + target.pid() + " runs on glibc" + version + evidence
                    + ", and the agent needs glibc " + BASELINE + " or later: nothing was loaded");
        }
    }

    /** Whether a glibc version named in a file name (2.31 in libc-2.31.so) is older than the baseline. */
    private static boolean olderThanBaseline(String version) {
        String[] parts = version.split("\\.");
        String[] baseline = BASELINE.split("\\.");
        int major = Integer.parseInt(parts[0]);
        int baselineMajor = Integer.parseInt(baseline[0]);
        return major != baselineMajor ? major < baselineMajor : Integer.parseInt(parts[1]) < Integer.parseInt(baseline[1]);
    }

    /**
     * Whether the library (glibc 2.34 and later name it libc.so.6 alone) defines the baseline's symbol version, which the dynamic loader requires
     * of it; read as the target sees it, through its root. Unreadable counts as yes.
     */
    private static boolean definesBaseline(Path root, String library) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(root.resolve(library.substring(1)));
        } catch (IOException e) {
            return true;
        }
        for (int i = 0; i + BASELINE_VERSION.length <= bytes.length; i++) {
            if (bytes[i] == 'G' && Arrays.equals(bytes, i, i + BASELINE_VERSION.length, BASELINE_VERSION, 0, BASELINE_VERSION.length)) {
                return true;
            }
        }
        return false;
    }
}
