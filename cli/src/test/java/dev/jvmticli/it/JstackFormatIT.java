package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.olivergondza.dumpling.factory.ThreadDumpFactory;
import com.github.olivergondza.dumpling.model.ProcessThread;
import com.github.olivergondza.dumpling.model.ThreadLock;
import com.github.olivergondza.dumpling.model.dump.ThreadDumpRuntime;
import com.github.olivergondza.dumpling.query.Deadlocks;
import dev.jvmticli.targets.LocksTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.TargetsPerJdk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code stacks -l} against {@code jstack -l} of the same LocksTarget (monitor, ReentrantLock and
 * mixed deadlocks, contention, timed and untimed Object.wait, nested and recursive monitors, parked
 * threads, an idle pool, a 1,500-frame stack), taken back to back on every installed JDK. Masked:
 * object names (jstack's addresses, our identity hashes; each pairing must hold through the whole
 * dump), cpu=, elapsed=, the timestamp and the blanks that end jstack's header lines. Every thread
 * jstack lists we list too, the JVM's own included (the Java threads JVMTI hides: Service, Monitor
 * Deflation, compiler and sweeper threads; and the non-Java threads, which have no {@code #id}),
 * and everything else of each, header, state line, frames, lock lines and owned synchronizers, must
 * be the same line for line, and so must the deadlock section, but for these exceptions:
 * <ul>
 *   <li>the last Java stack pointer, {@code [0x...]} at the end of jstack's header: no source;</li>
 *   <li>a compiler thread's {@code No compile task} or {@code Compiling: ...} line: HotSpot's table
 *       does not describe CompilerThread::_task;</li>
 *   <li>jstack's {@code Threads class SMR info} and {@code JNI global refs} lines: no source;</li>
 *   <li>jstack prints at most MaxJavaStackTraceDepth (1024) frames without a mark: its frames must be
 *       the first of ours;</li>
 *   <li>the Attach Listener's header words: it is serving one of the two requests;</li>
 *   <li>the agent's own thread, marked {@code (jvmti-cli agent)} by us.</li>
 * </ul>
 * A thread caught moving between the two dumps would differ: the pair is taken again, three times
 * at most. Then a reader someone else wrote, Dumpling's thread-dump parser, must read both dumps
 * into the same threads, states, frame counts, locks and deadlocks.
 */
class JstackFormatIT {
    @RegisterExtension
    static final TargetsPerJdk TARGETS = TargetsPerJdk.of(LocksTarget.class);

    private static final int JSTACK_MAX_DEPTH = 1024;
    /** A Java thread's header ({@code #id}) or a non-Java thread's (the OS thread's facts right after the name). */
    private static final Pattern THREAD_HEADER = Pattern.compile("^\"(.*)\" (?:#\\d+ |os_prio=|cpu=).*");
    private static final Pattern COMPILE_TASK = Pattern.compile("   (No compile task|Compiling: .*)");
    private static final Pattern OBJECT = Pattern.compile("<0x[0-9a-f]+>|(?<=object |synchronizer )0x[0-9a-f]+");
    /** jstack's ObjectMonitor address in the deadlock section; we name a monitor by its object. */
    private static final Pattern MONITOR = Pattern.compile("(?<=waiting to lock monitor )\\S+");
    private static final Pattern STACK_POINTER = Pattern.compile("  \\[0x[0-9a-f]+\\]$");
    private static final String AGENT = "jvmti-cli agent";
    private static final String ATTACH_LISTENER = "Attach Listener";

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private record Dumps(String jstack, String ours) {
    }

    private static Dumps takeBoth(Jdks.Jdk jdk) throws Exception {
        return takeBoth(jdk, TARGETS.get(jdk));
    }

    private static Dumps takeBoth(Jdks.Jdk jdk, TargetJvm target) throws Exception {
        Process jstack = new ProcessBuilder(jdk.home().resolve("bin/jstack").toString(), "-l", Long.toString(target.pid()))
                .redirectErrorStream(true).start();
        String theirs = new String(jstack.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, jstack.waitFor(), theirs);
        Result ours = CliRun.run("stacks", Long.toString(target.pid()), "-l");
        assertEquals(0, ours.exit(), ours.toString());
        return new Dumps(theirs, ours.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void everyThreadBothListHasJstacksHeaderStateFramesAndLockLines(Jdks.Jdk jdk) throws Exception {
        List<String> differences = List.of();
        for (int attempt = 1; attempt <= 3; attempt++) {
            Dumps dumps = takeBoth(jdk);
            differences = differences(dumps.jstack(), dumps.ours());
            if (differences.isEmpty()) {
                return;
            }
        }
        assertEquals(List.of(), differences, jdk + ": stacks -l differs from jstack -l (last of three pairs)");
    }

    /**
     * A JVM started with nice 7: HotSpot prints os_prio 0 for every thread unless it sets native
     * priorities itself (ThreadPriorityPolicy=1, root only), whatever the process's nice value.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void osPriorityIsJstacksInANicedJvm(int threadPriorityPolicy) throws Exception {
        Jdks.Jdk jdk = Jdks.current();
        try (TargetJvm target = TargetJvm.startWrapped(List.of("nice", "-n", "7"), TargetJvm.testClasses(), jdk, LocksTarget.class,
                List.of("-XX:ThreadPriorityPolicy=" + threadPriorityPolicy))) {
            List<String> differences = List.of();
            for (int attempt = 1; attempt <= 3; attempt++) {
                differences = differences(takeBoth(jdk, target));
                if (differences.isEmpty()) {
                    return;
                }
            }
            assertEquals(List.of(), differences, "ThreadPriorityPolicy=" + threadPriorityPolicy + " under nice 7 (last of three pairs)");
        }
    }

    private static List<String> differences(Dumps dumps) {
        return differences(dumps.jstack(), dumps.ours());
    }

    /** Where stacks -l (ours) differs from jstack -l of the same LocksTarget; also used by DebianRootsIT. */
    static List<String> differences(String jstackDump, String ourDump) {
        List<String> differences = new ArrayList<>();
        String[] jstackLines = jstackDump.split("\n");
        String[] ourLines = ourDump.split("\n");
        if (!jstackLines[1].equals(ourLines[1])) {
            differences.add("preamble: " + jstackLines[1] + " | " + ourLines[1]);
        }
        Map<String, List<String>> theirs = threads(jstackDump);
        Map<String, List<String>> ours = threads(ourDump);
        ObjectNames names = new ObjectNames();
        for (Map.Entry<String, List<String>> thread : theirs.entrySet()) {
            String name = thread.getKey();
            List<String> mine = ours.get(name);
            if (mine == null) {
                differences.add("\"" + name + "\": listed by jstack only");
                continue;
            }
            List<String> jstack = thread.getValue().stream().filter(line -> !COMPILE_TASK.matcher(line).matches()).toList();
            if (name.equals(AGENT)) {
                mine = new ArrayList<>(mine);
                mine.set(0, mine.get(0).replace(" runnable (jvmti-cli agent)", " runnable"));
            }
            if (name.equals(ATTACH_LISTENER)) {
                jstack = withoutHeaderWords(jstack);
                mine = withoutHeaderWords(mine);
            }
            if (jstack.size() - 2 >= JSTACK_MAX_DEPTH && frameCount(jstack) == JSTACK_MAX_DEPTH) {
                mine = firstFrames(mine, JSTACK_MAX_DEPTH);
                jstack = firstFrames(jstack, JSTACK_MAX_DEPTH);
            }
            compare("\"" + name + "\"", jstack, mine, names, differences);
        }
        ours.keySet().stream().filter(name -> !theirs.containsKey(name)).forEach(name -> differences.add("\"" + name + "\": listed by us only"));
        compare("deadlock section", deadlockSection(jstackDump), deadlockSection(ourDump), names, differences);
        assertTrue(theirs.size() >= 30 && ours.size() >= 30, theirs.keySet() + "\n" + ours.keySet());
        return differences;
    }

    /** The jstack name of each object and our name for it: one to one through the whole dump. */
    private static final class ObjectNames {
        private final Map<String, String> ourName = new HashMap<>();
        private final Map<String, String> jstackName = new HashMap<>();

        boolean pair(String theirs, String ours) {
            return ourName.computeIfAbsent(theirs, k -> ours).equals(ours) && jstackName.computeIfAbsent(ours, k -> theirs).equals(theirs);
        }
    }

    private static void compare(String what, List<String> jstack, List<String> ours, ObjectNames names, List<String> differences) {
        int lines = Math.max(jstack.size(), ours.size());
        for (int i = 0; i < lines; i++) {
            String theirs = i < jstack.size() ? jstack.get(i) : "(none)";
            String mine = i < ours.size() ? ours.get(i) : "(none)";
            if (!masked(theirs).equals(masked(mine)) || !sameObjects(theirs, mine, names)) {
                differences.add(what + " line " + (i + 1) + ":\n  jstack: " + theirs + "\n  ours:   " + mine);
                return;
            }
        }
    }

    private static String masked(String line) {
        String masked = OBJECT.matcher(withoutMonitor(STACK_POINTER.matcher(line).replaceAll(""))).replaceAll("<object>");
        return masked.replaceAll("cpu=[0-9.]+ms", "cpu=").replaceAll("elapsed=[0-9.]+s", "elapsed=").stripTrailing();
    }

    private static String withoutMonitor(String line) {
        return MONITOR.matcher(line).replaceAll("<monitor>");
    }

    private static boolean sameObjects(String jstack, String ours, ObjectNames names) {
        List<String> theirs = OBJECT.matcher(withoutMonitor(jstack)).results().map(java.util.regex.MatchResult::group).toList();
        List<String> mine = OBJECT.matcher(withoutMonitor(ours)).results().map(java.util.regex.MatchResult::group).toList();
        if (theirs.size() != mine.size()) {
            return false;
        }
        for (int i = 0; i < theirs.size(); i++) {
            String jstackName = theirs.get(i).replaceAll("[<>]", "");
            if (!names.pair(jstackName, mine.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Each thread's lines, header first, up to the blank line after its synchronizers; by name. */
    private static Map<String, List<String>> threads(String dump) {
        Map<String, List<String>> threads = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : dump.split("\n")) {
            Matcher header = THREAD_HEADER.matcher(line);
            if (header.matches()) {
                current = new ArrayList<>();
                threads.put(header.group(1), current);
            } else if (line.startsWith("\"") || line.startsWith("Found one Java-level deadlock:") || line.startsWith("JNI global")) {
                current = null;
            }
            if (current != null) {
                current.add(line);
            }
        }
        return threads;
    }

    private static List<String> withoutHeaderWords(List<String> thread) {
        List<String> copy = new ArrayList<>(thread);
        copy.set(0, STACK_POINTER.matcher(copy.get(0)).replaceAll("").replaceAll("(nid=\\S+) .*", "$1"));
        return copy;
    }

    private static long frameCount(List<String> thread) {
        return thread.stream().filter(line -> line.startsWith("\tat ")).count();
    }

    /** The thread with only its first n frames (and their lock lines); what follows the frames stays. */
    private static List<String> firstFrames(List<String> thread, int n) {
        List<String> kept = new ArrayList<>();
        int frames = 0;
        boolean framesEnded = false;
        for (String line : thread) {
            frames += line.startsWith("\tat ") ? 1 : 0;
            framesEnded |= frames > 0 && line.isEmpty();
            if (frames <= n || framesEnded) {
                kept.add(line);
            }
        }
        return kept;
    }

    /** From the first "Found one Java-level deadlock:" to "Found N deadlock(s)." */
    private static List<String> deadlockSection(String dump) {
        int start = dump.indexOf("Found one Java-level deadlock:");
        return start < 0 ? List.of() : List.of(dump.substring(start).strip().split("\n"));
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void dumplingReadsBothDumpsIntoTheSameThreadsLocksAndDeadlocks(Jdks.Jdk jdk) throws Exception {
        Map<String, String> theirs = Map.of();
        Map<String, String> ours = Map.of();
        for (int attempt = 1; attempt <= 3 && (theirs.isEmpty() || !theirs.equals(ours)); attempt++) {
            Dumps dumps = takeBoth(jdk);
            theirs = dumpling(dumps.jstack());
            ours = dumpling(dumps.ours());
        }
        Map<String, String> found = new TreeMap<>(ours);
        assertEquals(new TreeMap<>(theirs), found, jdk + ": what Dumpling reads from jstack -l and from stacks -l");
        assertTrue(found.get("deadlocks").contains("[mon-dl-a, mon-dl-b]") && found.get("deadlocks").contains("[ring-1, ring-2, ring-3]"),
                found.get("deadlocks"));
        assertTrue(found.get("waiter-timed").contains("waitingOn=java.lang.Object") && found.get("holder").contains("monitors=1"),
                found.toString());
    }

    /**
     * What Dumpling's model says of each thread, by name (the JVM's own threads, which have no Java
     * id, under "jvm:"), and its deadlocks under "deadlocks". Frames past jstack's 1024 are not
     * counted; the owner of what a thread waits for is by name.
     */
    private static Map<String, String> dumpling(String dump) throws IOException {
        Path file = Files.createTempFile("jstack-format", ".txt");
        try {
            Files.writeString(file, dump);
            ThreadDumpRuntime runtime = new ThreadDumpFactory().fromFile(file.toFile());
            Map<String, String> threads = new TreeMap<>();
            for (ProcessThread<?, ?, ?> t : runtime.getThreads()) {
                ProcessThread<?, ?, ?> blocking = t.getBlockingThread();
                String facts = "id=" + t.getId() + " nid=" + t.getNid() + " tid=" + t.getTid() + " prio=" + t.getPriority()
                        + " daemon=" + t.isDaemon() + " state=" + t.getState() + " status=" + t.getStatus()
                        + " frames=" + Math.min(t.getStackTrace().size(), JSTACK_MAX_DEPTH)
                        + " monitors=" + t.getAcquiredMonitors().size() + " synchronizers=" + t.getAcquiredSynchronizers().size()
                        + " waitingOn=" + className(t.getWaitingOnLock()) + " waitingTo=" + className(t.getWaitingToLock())
                        + " blockedBy=" + (blocking == null ? null : blocking.getName());
                threads.put(t.getId() == null ? "jvm:" + t.getName() : t.getName(), t.getName().equals(ATTACH_LISTENER) ? "present" : facts);
            }
            Set<String> cycles = new TreeSet<>();
            for (Iterable<? extends ProcessThread<?, ?, ?>> cycle : new Deadlocks().query(runtime.getThreads()).getDeadlocks()) {
                List<String> members = new ArrayList<>();
                cycle.forEach(t -> members.add(t.getName()));
                cycles.add(members.stream().sorted().collect(Collectors.toList()).toString());
            }
            threads.put("deadlocks", cycles.toString());
            return threads;
        } finally {
            Files.delete(file);
        }
    }

    private static String className(ThreadLock lock) {
        return lock == null ? null : lock.getClassName();
    }
}
