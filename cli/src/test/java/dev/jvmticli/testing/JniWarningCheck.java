package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when a target JVM it started printed a warning of the JVM's JNI checker
 * ({@code -Xcheck:jni}, which every {@link TargetJvm} runs with): the agent broke a JNI rule in
 * someone else's process. Registered for every integration test class by auto-detection
 * (META-INF/services, enabled in the failsafe configuration); a target started without it
 * active fails at once, so the check cannot be left out by accident. The failure names each
 * target, its warnings with their counts, and the command that preceded each warning's first
 * occurrence.
 */
public final class JniWarningCheck implements BeforeAllCallback, AfterAllCallback {
    /**
     * The first line of each report of HotSpot's checker (jniCheck.cpp and jniCheck.hpp, and the
     * signal handler check -Xcheck:jni turns on, signals_posix.cpp); the stack of the thread that
     * broke the rule follows it:
     * <ul>
     *   <li>{@code WARNING in native method: MESSAGE} (a broken rule the JVM survives: an unchecked
     *       or pending exception, a decorated class name, a null throwable, ...)</li>
     *   <li>{@code FATAL ERROR in native method: MESSAGE} (the JVM aborts; an array release's
     *       {@code FUNCTION: ...} detail line comes before it)</li>
     *   <li>{@code WARNING: JNI local refs: N, exceeds capacity: M}</li>
     *   <li>{@code Warning: Calling other JNI functions in the scope of Get/ReleasePrimitiveArrayCritical or Get/ReleaseStringCritical}</li>
     *   <li>{@code Warning: SIGNAL handler modified!} (SIGNAL as os::exception_name writes it:
     *       SIGSEGV, SIGRTMIN+3, ...; the signal handlers' table and {@code Consider using jsig
     *       library.} follow it)</li>
     * </ul>
     */
    static final Pattern WARNING = Pattern.compile("^(WARNING in native method: |FATAL ERROR in native method: "
            + "|WARNING: JNI local refs: |Warning: Calling other JNI functions in the scope of |Warning: \\S+ handler )");
    /**
     * What -Xcheck:jni's signal check prints, once per signal, when a profiler installs its own
     * SIGSEGV and SIGBUS handlers (async-profiler's, which hand on to the JVM's what they do not
     * handle): expected of a target marked {@link TargetJvm#profiled()}, a warning in any other.
     * JDK 11 names both handlers instead ({@code expected:libjvm.so+0xbc6680  found:6+0x10110}).
     */
    static final Pattern PROFILER_SIGNALS = Pattern.compile("^Warning: SIG(SEGV|BUS) handler (modified!|expected:\\S+ +found:\\S+)$");
    /**
     * What JDK 11's signal check prints for a shutdown signal the JVM was started with ignored
     * (found: SIG_IGN): HotSpot then leaves it ignored and its check still expects its own handler.
     * A target inherits the ignored signals of this JVM (a suite started under nohup, or as a
     * background job of a script, ignores SIGHUP or SIGINT): the environment's, not the agent's.
     */
    static final Pattern IGNORED_SHUTDOWN_SIGNAL = Pattern.compile("^Warning: SIG(HUP|INT|QUIT|TERM) handler expected:\\S+ +found:0x0*1$");
    private static final Map<String, Integer> SHUTDOWN_SIGNALS = Map.of("HUP", 1, "INT", 2, "QUIT", 3, "TERM", 15);
    private static final long IGNORED_HERE = ignoredSignals();

    /** Whether the line is a warning a target of this kind is expected to print. */
    static boolean expected(String line, boolean profiled) {
        return profiled && PROFILER_SIGNALS.matcher(line).matches() || ignoredOnStart(line, IGNORED_HERE);
    }

    /** Whether the line is JDK 11's note on a shutdown signal that the mask (SigIgn of /proc/PID/status) says was ignored. */
    static boolean ignoredOnStart(String line, long ignoredMask) {
        Matcher signal = IGNORED_SHUTDOWN_SIGNAL.matcher(line);
        return signal.matches() && (ignoredMask >> (SHUTDOWN_SIGNALS.get(signal.group(1)) - 1) & 1) == 1;
    }

    private static long ignoredSignals() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    return Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
                }
            }
            throw new IllegalStateException("no SigIgn in /proc/self/status");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A line of the stack the checker prints after a warning: native frames, then Java ones. */
    private static final Pattern FRAME = Pattern.compile("^(Native frames: |[VvCjJ] |\\s+at )");
    private static final int FRAMES_SHOWN = 8;
    private static final Duration OUTPUT_END = Duration.ofSeconds(10);

    private static final AtomicInteger RUNNING_CLASSES = new AtomicInteger();
    private static final Queue<Watched> WATCHED = new ConcurrentLinkedQueue<>();

    /** A target and how many of its lines an earlier class already checked (it outlived that class). */
    private static final class Watched {
        final TargetJvm target;
        int checked;

        Watched(TargetJvm target) {
            this.target = target;
        }
    }

    /**
     * The first line of each of the checker's warnings the target has printed so far (those of
     * another agent loaded later left out, the profiler's expected signal note too), for a test
     * that checks at a moment of its own what {@link #afterAll} checks at the class's end.
     */
    public static List<String> warnings(TargetJvm target) {
        return target.beforeAnotherAgent(target.output()).stream().map(TargetJvm.OutputLine::text)
                .filter(line -> WARNING.matcher(line).find() && !expected(line, target.isProfiled()))
                .toList();
    }

    /** Whether a line is the checker's (a warning or its stack), not the target's own answer. */
    static boolean isCheckerOutput(String line) {
        return WARNING.matcher(line).find() || FRAME.matcher(line).find();
    }

    /** Called by every target as it starts. */
    static void watch(TargetJvm target) {
        if (RUNNING_CLASSES.get() == 0) {
            throw new IllegalStateException("a target JVM started outside a test class checked by " + JniWarningCheck.class.getName()
                    + ": junit.jupiter.extensions.autodetection.enabled must be true (cli/src/test/resources/junit-platform.properties)");
        }
        WATCHED.add(new Watched(target));
    }

    /**
     * For the test of this check: the report on a target that has been closed, or null, and the
     * target is no longer watched.
     */
    public static String takeReport(TargetJvm target) throws InterruptedException {
        if (!target.awaitEnd(OUTPUT_END)) {
            throw new IllegalStateException("target " + target.pid() + " has not ended");
        }
        WATCHED.removeIf(watched -> watched.target == target);
        return report(target.pid(), target.description(), target.beforeAnotherAgent(target.output()), target.isProfiled());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        RUNNING_CLASSES.incrementAndGet();
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        RUNNING_CLASSES.decrementAndGet();
        List<String> reports = new ArrayList<>();
        for (Watched watched : WATCHED) {
            boolean ended = !watched.target.process().isAlive() && watched.target.awaitEnd(OUTPUT_END);
            List<TargetJvm.OutputLine> output = watched.target.output();
            String report = report(watched.target.pid(), watched.target.description(),
                    watched.target.beforeAnotherAgent(output.subList(watched.checked, output.size())), watched.target.isProfiled());
            if (report != null) {
                reports.add(report);
            }
            watched.checked = output.size();
            if (ended) {
                WATCHED.remove(watched);
            }
        }
        if (!reports.isEmpty()) {
            throw new AssertionError("The JVM's JNI checker (-Xcheck:jni) printed warnings in " + reports.size() + " target JVM(s) of "
                    + context.getDisplayName() + ": the agent breaks a JNI rule\n" + String.join("\n", reports));
        }
    }

    /** The warnings among the lines, with the command before each one's first occurrence; null if none. */
    static String report(long pid, String description, List<TargetJvm.OutputLine> lines, boolean profiled) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, String> firsts = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            TargetJvm.OutputLine line = lines.get(i);
            if (!WARNING.matcher(line.text()).find() || expected(line.text(), profiled)) {
                continue;
            }
            if (counts.merge(line.text(), 1, Integer::sum) == 1) {
                StringBuilder first = new StringBuilder("    after ").append(CommandLog.precedingCommand(line.arrivalNanos(), pid))
                        .append(":\n      ").append(line.text());
                for (int j = i + 1; j < lines.size() && j <= i + FRAMES_SHOWN && FRAME.matcher(lines.get(j).text()).find(); j++) {
                    first.append("\n        ").append(lines.get(j).text());
                }
                firsts.put(line.text(), first.toString());
            }
        }
        if (counts.isEmpty()) {
            return null;
        }
        StringBuilder report = new StringBuilder("  target JVM " + pid + " (" + description + "): "
                + counts.values().stream().mapToInt(Integer::intValue).sum() + " warning(s)");
        counts.forEach((text, count) -> report.append("\n    ").append(count).append("x ").append(text).append('\n').append(firsts.get(text)));
        return report.toString();
    }
}
