package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.HeldLocksTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Jstack;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code stacks -l} on a JVM under load whose threads own ReentrantLocks and write locks and wake
 * every millisecond ({@link HeldLocksTarget}), against {@code jstack -l} run right before it, and
 * against the target's own record of its safepoints ({@code -Xlog:safepoint}): every thread's
 * "Locked ownable synchronizers" known, each holder's equal to jstack's, so are those of every
 * thread at the same frames in both; the whole dump one VM operation at one safepoint
 * ({@code ThreadDump}), and no {@code DeoptimizeFrame}. The pauses side by side are printed;
 * bench/stacks-locked.sh measures them (docs/performance.md).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StacksLockedIT {
    static final Pattern SAFEPOINT = Pattern.compile("Safepoint \"(\\w+)\".* Total: (\\d+) ns");
    /** The target's own safepoints, which come whoever asks: collections and the periodic cleanup. */
    static final Pattern THE_TARGETS_OWN = Pattern.compile("Cleanup|ICBufferFull|.*G1.*|.*GC.*|.*Collect.*|Z.*|Shenandoah.*");
    static final int PAIRS = 3;

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    record Operation(String name, long nanos) {
    }

    /** A thread of a jstack -l style dump: its frame lines and the classes of its locked ownable synchronizers. */
    record DumpedThread(List<String> frames, List<String> synchronizers, boolean notKnown) {
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void everyThreadsSynchronizersAreJstacksFromOneSafepointWithoutDeoptimization(Jdks.Jdk jdk) throws Exception {
        Path log = Files.createTempFile("stacks-locked-safepoints", ".log");
        try (TargetJvm target = TargetJvm.start(jdk, HeldLocksTarget.class, List.of("-Xlog:safepoint:file=" + log,
                "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,dev.jvmticli.targets.HeldLocksTarget::touch"))) {
            String pid = Long.toString(target.pid());
            Result attach = CliRun.run("threads", pid); // the agent loaded before anything is counted
            assertEquals(0, attach.exit(), attach.toString());
            List<Long> ourPauses = new ArrayList<>();
            List<Long> theirPauses = new ArrayList<>();
            for (int pair = 0; pair < PAIRS; pair++) {
                int mark = Files.readAllLines(log).size();
                String jstack = Jstack.locked(jdk, Long.parseLong(pid));
                List<Operation> theirs = operationsSince(log, mark);
                mark = Files.readAllLines(log).size();
                Result ours = CliRun.run("stacks", pid, "-l");
                List<Operation> mine = operationsSince(log, mark);
                assertEquals(0, ours.exit(), ours.toString());

                Map<String, DumpedThread> ourThreads = threads(ours.out());
                Map<String, DumpedThread> theirThreads = threads(jstack);
                List<Operation> tools = mine.stream().filter(o -> !THE_TARGETS_OWN.matcher(o.name()).matches()).toList();
                String when = jdk + ", pair " + (pair + 1);
                assertAll(when,
                        () -> assertEquals(List.of(), ourThreads.entrySet().stream().filter(e -> e.getValue().notKnown())
                                .map(Map.Entry::getKey).toList(), "threads whose synchronizers stacks -l does not know"),
                        () -> assertHoldersAreJstacks(ourThreads, theirThreads, ours.out()),
                        () -> assertSameAtTheSameFrames(ourThreads, theirThreads),
                        () -> assertTrue(mine.stream().noneMatch(o -> o.name().equals("DeoptimizeFrame")), "stacks -l deoptimized: " + mine),
                        () -> assertEquals(List.of("ThreadDump"), tools.stream().map(Operation::name).toList(),
                                "the whole dump one VM operation at one safepoint; logged " + mine));
                ourPauses.add(tools.stream().mapToLong(Operation::nanos).sum());
                theirPauses.add(theirs.stream().filter(o -> !THE_TARGETS_OWN.matcher(o.name()).matches()).mapToLong(Operation::nanos).sum());
            }
            System.out.printf("%s: stacks -l paused the target %s ns, jstack -l %s ns (median ratio %.2f)%n", jdk, ourPauses,
                    theirPauses, (double) median(ourPauses) / Math.max(1, median(theirPauses)));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static void assertHoldersAreJstacks(Map<String, DumpedThread> ours, Map<String, DumpedThread> theirs, String dump) {
        for (int i = 0; i < HeldLocksTarget.HOLDERS; i++) {
            String name = "holder-" + i;
            assertEquals(List.of("java.util.concurrent.locks.ReentrantLock$NonfairSync",
                    "java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync"), sorted(ours.get(name).synchronizers()), name + "\n" + dump);
            assertEquals(sorted(theirs.get(name).synchronizers()), sorted(ours.get(name).synchronizers()), name + " against jstack -l");
        }
    }

    /** In the order of the heap, which a collection in between changes. */
    private static void assertSameAtTheSameFrames(Map<String, DumpedThread> ours, Map<String, DumpedThread> theirs) {
        List<String> differ = new ArrayList<>();
        ours.forEach((name, t) -> {
            DumpedThread their = theirs.get(name);
            if (their != null && their.frames().equals(t.frames()) && !sorted(their.synchronizers()).equals(sorted(t.synchronizers()))) {
                differ.add(name + ": ours " + t.synchronizers() + ", jstack -l " + their.synchronizers());
            }
        });
        assertTrue(differ.isEmpty(), "at the same frames, other synchronizers than jstack -l's:\n" + String.join("\n", differ));
    }

    private static List<String> sorted(List<String> values) {
        return values.stream().sorted().toList();
    }

    private static long median(List<Long> values) {
        return values.stream().sorted().toList().get(values.size() / 2);
    }

    private static List<Operation> operationsSince(Path log, int mark) throws IOException {
        List<String> lines = Files.readAllLines(log);
        List<Operation> found = new ArrayList<>();
        for (String line : lines.subList(Math.min(mark, lines.size()), lines.size())) {
            Matcher m = SAFEPOINT.matcher(line);
            if (m.find()) {
                found.add(new Operation(m.group(1), Long.parseLong(m.group(2))));
            }
        }
        return found;
    }

    /** Each thread of a dump in jstack's text, by name. */
    static Map<String, DumpedThread> threads(String dump) {
        Map<String, DumpedThread> threads = new LinkedHashMap<>();
        String name = null;
        List<String> frames = new ArrayList<>();
        List<String> synchronizers = new ArrayList<>();
        boolean notKnown = false;
        boolean inSynchronizers = false;
        Pattern header = Pattern.compile("^\"(.*)\" #\\d+");
        Pattern synchronizer = Pattern.compile("^\t- <0x[0-9a-f]+> \\(a (.*)\\)$");
        for (String line : (dump + "\n\"end\" #0").split("\n")) {
            Matcher h = header.matcher(line);
            if (h.find()) {
                if (name != null) {
                    threads.put(name, new DumpedThread(frames, synchronizers, notKnown));
                }
                name = h.group(1);
                frames = new ArrayList<>();
                synchronizers = new ArrayList<>();
                notKnown = false;
                inSynchronizers = false;
            } else if (line.equals("   Locked ownable synchronizers:")) {
                inSynchronizers = true;
            } else if (inSynchronizers) {
                Matcher s = synchronizer.matcher(line);
                if (s.find()) {
                    synchronizers.add(s.group(1));
                }
                notKnown |= line.startsWith("\t- (");
            } else if (line.startsWith("\tat ")) {
                frames.add(line);
            }
        }
        return threads;
    }
}
