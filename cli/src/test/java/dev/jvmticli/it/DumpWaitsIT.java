package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.DumpWaitsTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.DebianRoots.RootJdk;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `dump` records the JVM's pauses and lock contention over its rounds, and summary.md says first the
 * longest pauses and the most waited-on locks: against DumpWaitsTarget, whose monitor one known thread
 * holds, whose System.gc() calls the target's own -Xlog:safepoint and -Xlog:gc log (the truth); and a
 * JVM whose pauses cannot be read (the agent loaded at start-up, never attached to) still dumps.
 */
class DumpWaitsIT {
    private static final Pattern LINE = Pattern.compile("^\\[(\\d+)ms\\]\\[(\\d+)ns\\] (.*)$");
    private static final Pattern SAFEPOINT = Pattern.compile(
            "^Safepoint \"([^\"]+)\", .*Reaching safepoint: (\\d+) ns, .*At safepoint: (\\d+) ns, .*Total: (\\d+) ns");
    /** The time at the safepoint, which JDK 11 does not log. */
    private static final long NOT_LOGGED = -1;
    private static final Pattern GC_PAUSE = Pattern.compile("^GC\\((\\d+)\\) (Pause .*?)( \\d+[BKMGT]?->.*)?$");
    /** Operations only a reader of the JVM makes: DumpWaitsTarget never dumps its threads or asks for a monitor's usage. */
    private static final Set<String> READS = Set.of("ThreadDump", "GetThreadListStackTraces", "GetObjectMonitorUsage");
    /** The parks recording's probes going in: DumpWaitsTarget redefines no class. */
    private static final String PROBES = "RedefineClasses";

    @TempDir
    Path work;

    /** A safepoint the target logged, with the collector's pause logged inside it (null: none). */
    record Logged(long millis, long uptimeNanos, String operation, long reachingNanos, long atSafepointNanos, long totalNanos, String gc) {
        String key() {
            return uptimeNanos + " " + operation + " " + totalNanos;
        }
    }

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void summaryFirstSaysTheLongestPausesAndTheMostWaitedOnLocksWithTheirOwner(Jdks.Jdk jdk) throws Exception {
        Path log = work.resolve("safepoint.log");
        Path out = work.resolve("incident");
        String hash;
        try (TargetJvm target = TargetJvm.start(jdk, DumpWaitsTarget.class, options(log))) {
            hash = dump(target, out);
        }
        check(log, out, hash);
    }

    /** The same dump of Debian 11's OpenJDK 11 (whose log has no time at the safepoint) and Debian 13's OpenJDK 21, each in its root. */
    @ParameterizedTest
    @MethodSource("rootJdks")
    void onTheRootsJdks(RootJdk jdk) throws Exception {
        Path classes = DebianRoots.classes(jdk.root(), Path.of(CliRun.run("agent-path").out().strip()), DumpWaitsTarget.class);
        Path log = classes.resolve("safepoint-" + System.nanoTime() + ".log");
        Path logHere = jdk.root().resolve(log.toString().substring(1));
        Path out = work.resolve("incident");
        String hash;
        try (TargetJvm target = TargetJvm.startWrapped(DebianRoots.ownMountNamespace(jdk.root()), classes, jdk.inside(), DumpWaitsTarget.class,
                options(log))) {
            hash = dump(target, out);
        }
        try {
            check(logHere, out, hash);
        } finally {
            Files.deleteIfExists(logHere);
        }
    }

    static Stream<RootJdk> rootJdks() {
        return DebianRoots.jdks().filter(jdk -> jdk.feature() == 11 || jdk.feature() == 21);
    }

    private static List<String> options(Path log) {
        return List.of("-XX:+UseG1GC", "-Xmx64m", "-Xlog:safepoint=info,gc=info:file=" + log + ":timemillis,uptimenanos");
    }

    /** Dumps the target in two rounds 1.5 s apart into out; returns its monitor's identity hash. */
    private static String dump(TargetJvm target, Path out) {
        String hash = target.ask("hash");
        Result result = CliRun.run("dump", Long.toString(target.pid()), "--out", out.toString(), "--count", "2", "--interval", "1500ms");
        assertEquals(0, result.exit(), result.toString());
        return hash;
    }

    /** The dump's pauses against the target's own log, and summary.md's pauses and locks first, against the log and the target. */
    private static void check(Path log, Path out, String hash) throws Exception {
        Set<String> listed = new TreeSet<>();
        Json.parse(Files.readString(out.resolve("index.json"))).path("files").forEach(f -> listed.add(f.path("file").asText()));
        assertTrue(listed.containsAll(List.of("pauses/pauses.txt", "pauses/pauses.json", "contention/contention.txt",
                "contention/contention.json")), listed.toString());

        // every safepoint the target logged inside the window is in pauses.json once, with its figures, and nothing else
        JsonNode pauses = Json.parse(Files.readString(out.resolve("pauses/pauses.json")));
        Map<String, Logged> logged = new HashMap<>();
        safepoints(log).forEach(l -> logged.put(l.key(), l));
        Set<String> reported = new TreeSet<>();
        for (JsonNode p : pauses.path("pauses")) {
            String key = p.path("endUptimeNanos").asLong() + " " + p.path("operation").asText() + " " + p.path("totalNanos").asLong();
            assertTrue(logged.containsKey(key), "reported but not logged: " + p + "\nlogged:\n" + String.join("\n", Files.readAllLines(log)));
            assertEquals(logged.get(key).reachingNanos(), p.path("reachingNanos").asLong(), key);
            if (logged.get(key).atSafepointNanos() == NOT_LOGGED) {
                assertTrue(p.path("atSafepointNanos").isNull(), "the time at the safepoint, not logged, never made up: " + p);
            }
            assertTrue(reported.add(key), "reported twice: " + p);
        }
        long started = pauses.path("startedMillis").asLong();
        long stopped = pauses.path("stoppedMillis").asLong();
        List<Logged> inWindow = logged.values().stream().filter(l -> l.millis() > started && l.millis() < stopped).toList();
        inWindow.forEach(l -> assertTrue(reported.contains(l.key()), "logged in the window but not in the dump: " + l));
        // the window spans the rounds: the target's System.gc() every 700 ms
        List<Logged> systemGcs = inWindow.stream().filter(l -> l.gc() != null && l.gc().equals("Pause Full (System.gc())")).toList();
        assertTrue(systemGcs.size() >= 3, "the target's System.gc() calls over the dump: " + inWindow);

        String summary = Files.readString(out.resolve("summary.md"));
        assertTrue(summary.startsWith("**Most threads wait for:** "), summary);
        int pausesAt = summary.indexOf("\n## Longest pauses of the JVM (over the dump, ");
        int locksAt = summary.indexOf("\n## Most waited-on locks (over the dump, ");
        int restAt = summary.indexOf("\n# jvmti-cli dump of JVM ");
        assertTrue(pausesAt > 0 && locksAt > pausesAt && restAt > locksAt, "the pauses and the locks come first:\n" + summary);

        // the longest pauses: the target's own (what a reader of the JVM makes is the dump's), longest first, as logged
        List<Logged> all = reported.stream().map(logged::get).toList();
        List<Logged> targets = all.stream().filter(l -> !READS.contains(l.operation()) && !l.operation().equals(PROBES))
                .sorted(Comparator.comparingLong(Logged::totalNanos).reversed()).toList();
        List<String> rows = summary.substring(pausesAt, locksAt).lines().filter(l -> l.matches("\\| \\d\\d:.*")).toList();
        assertEquals(Math.min(5, targets.size()), rows.size(), summary.substring(pausesAt, locksAt));
        for (int i = 0; i < rows.size(); i++) {
            Logged l = targets.get(i);
            String[] cells = rows.get(i).split(" \\| ");
            assertEquals(millis(l.totalNanos()), cells[1], rows.get(i));
            assertEquals(millis(l.reachingNanos()), cells[2], rows.get(i));
            assertEquals(l.atSafepointNanos() == NOT_LOGGED ? "not logged" : millis(l.atSafepointNanos()), cells[3], rows.get(i));
            assertEquals("`" + l.operation() + "`", cells[4], rows.get(i));
            assertEquals(l.gc() == null ? "- |" : "`" + l.gc() + "` |", cells[5], rows.get(i));
        }
        assertTrue(rows.stream().anyMatch(r -> r.endsWith("| `Pause Full (System.gc())` |")), "a System.gc() among the longest:\n" + rows);
        long own = all.stream().filter(l -> READS.contains(l.operation()) || l.operation().equals(PROBES)).count();
        assertTrue(own > 0 && summary.contains("\n" + own + (own == 1 ? " pause (" : " pauses (")),
                "the dump's own pauses counted apart (" + own + " logged):\n" + summary.substring(pausesAt, locksAt));

        // the most waited-on locks, longest waited first: the target's monitor and its ReentrantLock (the blocker its
        // threads park on, its Sync), each held by its owner, waited on by its waiters
        String locks = summary.substring(locksAt, restAt);
        List<String> lockRows = locks.lines().filter(l -> l.startsWith("| `")).toList();
        List<Double> waited = lockRows.stream().map(r -> Double.parseDouble(r.split(" \\| ")[1])).toList();
        assertEquals(waited.stream().sorted(Comparator.reverseOrder()).toList(), waited, "ordered by total wait:\n" + locks);
        checkLockRow(lockRows, "dev.jvmticli.targets.DumpWaitsTarget$Ledger@" + hash, "ledger");
        checkLockRow(lockRows, "java.util.concurrent.locks.ReentrantLock$NonfairSync@", "vault");
        JsonNode contention = Json.parse(Files.readString(out.resolve("contention/contention.json")));
        assertEquals("dev.jvmticli.targets.DumpWaitsTarget$Ledger@" + hash, contention.path("monitors").path(0).path("monitor").asText());
        // LockSupport's probes are taken out: the bytes read again after are those it had
        JsonNode classes = contention.path("parks").path("classes");
        assertTrue(classes.size() >= 1, contention.path("parks").toString());
        classes.forEach(c -> assertEquals(c.path("sha256").asText(), c.path("restoredSha256").asText(), "put back: " + c));
        assertTrue(locks.contains("\nParks were recorded with probes in java.util.concurrent.locks.LockSupport") && locks.contains(". Classes put back: "
                + classes.size() + " of "
                + classes.size() + " with the bytes they had (SHA-256).\n"), locks);
    }

    /** The lock's row (its name starts with lock): its owner named first among those seen holding it, every waiter named. */
    private static void checkLockRow(List<String> rows, String lock, String name) {
        String row = rows.stream().filter(r -> r.startsWith("| `" + lock)).findFirst().orElseThrow(() -> new AssertionError(lock + " in\n" + rows));
        String[] cells = row.split(" \\| ");
        assertTrue(cells[3].startsWith("`" + name + "-owner ("), "its owner named first among those seen holding it: " + row);
        for (int i = 1; i <= DumpWaitsTarget.WAITERS; i++) {
            assertTrue(cells[4].contains(name + "-waiter-" + i + " ("), row);
        }
    }

    @Test
    void aJvmWhosePausesCannotBeReadStillDumpsWithOneLineSayingSo() throws Exception {
        String library = CliRun.run("agent-path").out().strip();
        try (TargetJvm target = TargetJvm.start(Jdks.current(), DumpWaitsTarget.class, List.of("-agentpath:" + library))) {
            Path out = work.resolve("startup");
            Result result = CliRun.run("dump", Long.toString(target.pid()), "--out", out.toString(), "--count", "1");
            assertEquals(0, result.exit(), result.toString());
            String summary = Files.readString(out.resolve("summary.md"));
            List<String> said = summary.lines().filter(l -> l.contains("pauses")).toList();
            assertEquals(1, said.size(), summary);
            assertTrue(said.get(0).startsWith("**The JVM's pauses:** not recorded: cannot read the JVM's safepoint log: the JVM's attach listener"),
                    said.get(0));
            assertFalse(Files.exists(out.resolve("pauses")), "no pauses files");
            assertTrue(summary.contains("\n## Most waited-on locks (over the dump, "), summary);

            Path off = work.resolve("off");
            result = CliRun.run("dump", Long.toString(target.pid()), "--out", off.toString(), "--count", "1", "--no-pauses", "--no-contention");
            assertEquals(0, result.exit(), result.toString());
            summary = Files.readString(off.resolve("summary.md"));
            assertTrue(summary.contains("\n**The JVM's pauses:** not recorded (--no-pauses).\n")
                    && summary.contains("\n**Lock contention over the dump:** not recorded (--no-contention).\n"), summary);
            assertFalse(Files.exists(off.resolve("pauses")) || Files.exists(off.resolve("contention")));
        }
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    /** The target's safepoints, each with the collector's pause (cause, without its figures) logged inside it. */
    private static List<Logged> safepoints(Path log) throws Exception {
        List<Logged> all = new ArrayList<>();
        String gc = null;
        long gcUptime = -1;
        String jdk11Operation = null;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            long uptime = Long.parseLong(m.group(2));
            Matcher g = GC_PAUSE.matcher(m.group(3));
            if (g.matches()) {
                gc = g.group(2);
                gcUptime = uptime;
                continue;
            }
            Matcher entering = PausesIT.JDK11_ENTERING.matcher(m.group(3));
            if (entering.matches()) {
                jdk11Operation = entering.group(1);
                continue;
            }
            Matcher s = SAFEPOINT.matcher(m.group(3));
            Matcher stopped = PausesIT.JDK11_STOPPED.matcher(m.group(3));
            Logged safepoint = null;
            if (s.find()) { // JDK 25 logs more after the total
                safepoint = new Logged(Long.parseLong(m.group(1)), uptime, s.group(1), Long.parseLong(s.group(2)), Long.parseLong(s.group(3)),
                        Long.parseLong(s.group(4)), null);
            } else if (stopped.matches() && jdk11Operation != null) {
                safepoint = new Logged(Long.parseLong(m.group(1)), uptime, jdk11Operation, PausesIT.nanos(stopped.group(2)), NOT_LOGGED,
                        PausesIT.nanos(stopped.group(1)), null);
                jdk11Operation = null;
            }
            if (safepoint != null) {
                boolean inside = gc != null && gcUptime <= uptime && gcUptime >= uptime - safepoint.totalNanos();
                all.add(inside ? new Logged(safepoint.millis(), uptime, safepoint.operation(), safepoint.reachingNanos(),
                        safepoint.atSafepointNanos(), safepoint.totalNanos(), gc) : safepoint);
                gc = null;
            }
        }
        return all;
    }
}
