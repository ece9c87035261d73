package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.AllocTarget;
import dev.jvmticli.targets.ContentionTarget;
import dev.jvmticli.targets.LocksTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.DebianRoots.RootJdk;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command against JVMs of the JDKs Debian ships, each on its own distribution's glibc, in
 * a root file system of its own ({@code .ci/roots}: Debian 11 with OpenJDK 11 and 17, Debian 13
 * with OpenJDK 21 and 25): once in a mount namespace of its own, once in a plain chroot sharing
 * the CLI's mount namespace (the CLI must reach the target's files through /proc/pid/root).
 * Each command runs once per JDK and way: the commands' own facts are checked on the machine's
 * JDKs by their own tests; here, that each answers, on each JDK, with the facts that tell it did.
 */
class DebianRootsIT {
    static Stream<RootJdk> jdks() {
        return DebianRoots.jdks();
    }

    @TempDir
    Path out;

    @ParameterizedTest
    @MethodSource("jdks")
    void everyCommandOnAJvmInItsOwnRootAndMountNamespace(RootJdk jdk) throws Exception {
        everyCommand(jdk, DebianRoots.ownMountNamespace(jdk.root()));
    }

    /** Needs the CLI to place its files through /proc/pid/root when the target's root is not its own (issue 32, item 2). */
    @ParameterizedTest
    @MethodSource("jdks")
    void everyCommandOnAJvmInAPlainChrootSharingOurMountNamespace(RootJdk jdk) throws Exception {
        DebianRoots.mountProc(jdk.root());
        try {
            DebianRoots.removePlacedLibraries(jdk.root());
            everyCommand(jdk, DebianRoots.plainChroot(jdk.root()));
            try (Stream<Path> copies = Files.list(DebianRoots.placedLibraries(jdk.root()))) {
                assertTrue(copies.anyMatch(p -> p.getFileName().toString().endsWith(".so")), "the library was placed inside the root");
            }
        } finally {
            DebianRoots.unmountProc(jdk.root());
        }
    }

    private void everyCommand(RootJdk jdk, List<String> wrapper) throws Exception {
        Path library = Path.of(CliRun.run("agent-path").out().strip());
        Path classes = DebianRoots.classes(jdk.root(), library, LocksTarget.class, ContentionTarget.class, AllocTarget.class);
        try (TargetJvm target = TargetJvm.startWrapped(wrapper, classes, jdk.inside(), LocksTarget.class, List.of())) {
            lockCommands(jdk, target);
        }
        try (TargetJvm target = TargetJvm.startWrapped(wrapper, classes, jdk.inside(), ContentionTarget.class, List.of())) {
            Result contention = run(jdk, "contention", pid(target), "--duration", "1s");
            assertTrue(contention.out().contains("dev.jvmticli.targets.ContentionTarget$Lock@"), jdk + ": " + contention);
            jitTiers(jdk, target);
        }
        List<String> startupMode = List.of("-agentpath:" + classes.resolve("libjvmticli.so") + "=v=7");
        try (TargetJvm target = TargetJvm.startWrapped(wrapper, classes, jdk.inside(), AllocTarget.class, startupMode).profiled()) {
            workCommands(jdk, target);
        }
    }

    /** threads, stacks -l against the JDK's own jstack, monitors, deadlocks, heap, memory, dump, the shell, detach. */
    private void lockCommands(RootJdk jdk, TargetJvm target) throws Exception {
        String pid = pid(target);
        Map<Long, String> ours = new TreeMap<>();
        Map<Long, String> theirs = new TreeMap<>();
        for (int attempt = 0; attempt < 3 && (ours.isEmpty() || !ours.equals(theirs)); attempt++) {
            ours.clear();
            theirs.clear();
            for (JsonNode t : Json.parse(run(jdk, "threads", pid, "--json").out()).path("threads")) {
                if (t.path("kind").asText("java").equals("java") && !t.path("agent").asBoolean() && !t.path("name").asText().equals("main")) {
                    ours.put(t.path("id").asLong(), t.path("name").asText() + " " + t.path("state").asText());
                }
            }
            for (String entry : target.ask("threads").split(" ")) {
                String[] parts = entry.split(":");
                String name = new String(Base64.getDecoder().decode(parts[2]), StandardCharsets.UTF_8);
                if (!name.equals("main")) {
                    theirs.put(Long.parseLong(parts[0]), name + " " + parts[1]);
                }
            }
        }
        assertEquals(theirs, ours, jdk + ": each thread's state, as the target itself sees it");

        List<String> differences = List.of();
        for (int attempt = 0; attempt < 3; attempt++) {
            String jstack = DebianRoots.toolOutput(jdk, target.pid(), "jstack", "-l", Long.toString(target.pid()));
            String stacks = run(jdk, "stacks", pid, "-l").out();
            differences = jdk.feature() == 11
                    ? JstackFormatIT.differences(jdk11JavaThreads(asHotSpotPrintsIt(jstack), stacks), jdk11JavaThreads(stacks, stacks))
                    : JstackFormatIT.differences(asHotSpotPrintsIt(jstack), stacks);
            if (differences.isEmpty()) {
                break;
            }
        }
        assertEquals(List.of(), differences, jdk + ": stacks -l against the jstack -l of the target's JDK");

        Result monitors = run(jdk, "monitors", pid);
        assertTrue(monitors.out().contains("waiting to lock") && monitors.out().contains("\"holder\""), jdk + ": " + monitors);
        Result deadlocks = CliRun.run("deadlocks", pid);
        assertEquals(10, deadlocks.exit(), jdk + ": " + deadlocks);
        for (String thread : List.of("\"mon-dl-a\":", "\"rl-dl-a\":", "\"ring-3\":")) {
            assertTrue(deadlocks.out().contains(thread), jdk + ": " + thread + " in " + deadlocks);
        }
        assertTrue(run(jdk, "heap", pid).out().contains("java.lang.String"), jdk + ": heap");
        assertTrue(run(jdk, "memory", pid).out().contains("heap"), jdk + ": memory");
        Path dumps = out.resolve("dump-" + jdk.feature());
        run(jdk, "dump", pid, "--out", dumps.toString(), "--count", "1");
        try (Stream<Path> files = Files.walk(dumps)) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().contains("stacks")), jdk + ": dump wrote no stacks");
        }
        Result shell = run(jdk, "shell", pid, "-c", "threads --name holder | grep -c TIMED_WAITING");
        assertEquals("1", shell.out().strip(), jdk + ": " + shell);
        assertEquals(1, Proc.agentThreads(target.pid()));
        detach(jdk, target);
    }

    /** alloc, alloc --live, profile, jit in start-up mode, then detach. */
    private void workCommands(RootJdk jdk, TargetJvm target) throws InterruptedException {
        String pid = pid(target);
        JsonNode threads = Json.parse(run(jdk, "threads", pid, "--json").out()).path("threads");
        Json.find(threads, "name", "allocator");
        Result alloc = run(jdk, "alloc", pid, "--duration", "1s");
        assertTrue(alloc.out().contains("dev.jvmticli.targets.AllocTarget$Marker[]"), jdk + ": " + alloc);
        Result live = run(jdk, "alloc", pid, "--live", "--duration", "1s");
        assertTrue(live.out().contains("Still alive at the end"), jdk + ": " + live);
        Result profile = run(jdk, "profile", pid, "--duration", "1s");
        assertTrue(profile.out().contains("dev.jvmticli.targets.AllocTarget."), jdk + ": " + profile);
        Result jit = run(jdk, "jit", pid);
        assertTrue(jit.out().contains("dev.jvmticli.targets.AllocTarget.churn"), jdk + ": " + jit);
        detach(jdk, target);
    }

    /**
     * jit after a live attach (which started the JVM's attach listener, where the agent asks for
     * the code list): the code list has a piece of code of each range JVMTI reported, so nearly
     * every piece has its tier (on JDK 11, matched by where its stubs begin).
     */
    private static void jitTiers(RootJdk jdk, TargetJvm target) {
        JsonNode code = Json.parse(run(jdk, "jit", pid(target), "--json").out());
        int pieces = 0;
        int withTier = 0;
        for (JsonNode piece : code.path("compiled")) {
            pieces++;
            withTier += piece.path("tier").isInt() ? 1 : 0;
        }
        assertTrue(code.path("codeListError").isNull() && pieces > 0 && withTier >= pieces * 9 / 10,
                jdk + ": " + withTier + " of " + pieces + " pieces of code with a tier; " + code.path("codeListError"));
    }

    /** detach answers, and the agent's thread ends (after its answer: given up to 10 s). */
    private static void detach(RootJdk jdk, TargetJvm target) throws InterruptedException {
        assertTrue(run(jdk, "detach", pid(target)).out().startsWith("detached from " + target.pid()), jdk + ": detach");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (Proc.agentThreads(target.pid()) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, Proc.agentThreads(target.pid()), jdk + ": the agent thread ended at detach");
    }

    /**
     * Debian's builds of JDK 21 and 25 print their own preamble: no colon after the VM's name, and
     * a line naming the JDK's version under it. stacks prints HotSpot's (docs/stacks.md).
     */
    static String asHotSpotPrintsIt(String jstack) {
        List<String> lines = new ArrayList<>(List.of(jstack.split("\n", -1)));
        if (lines.size() > 2 && lines.get(1).startsWith("Full thread dump ") && !lines.get(1).endsWith(":")
                && lines.get(2).strip().startsWith("JDK version: ")) {
            lines.set(1, lines.get(1) + ":");
            lines.remove(2);
        }
        return String.join("\n", lines);
    }

    /**
     * A JDK 11 dump cut to what stacks and jstack print alike there (docs/stacks.md): the Java
     * threads stacks lists as such (the JVM's own threads it lists without #id, daemon, prio and
     * tid); no lock line under the frame that called Object.wait (jstack's "waiting to re-lock in
     * wait()", where later jstacks and stacks say "locked", or nothing where JDK 11's management
     * interface leaves that monitor out); no blank line between the threads of a deadlock.
     */
    private static String jdk11JavaThreads(String dump, String ours) {
        java.util.Set<String> javaThreads = new java.util.HashSet<>();
        for (String line : ours.split("\n")) {
            java.util.regex.Matcher header = JAVA_THREAD.matcher(line);
            if (header.matches()) {
                javaThreads.add(header.group(1));
            }
        }
        List<String> kept = new ArrayList<>();
        boolean inThread = true;
        boolean inDeadlocks = false;
        String[] lines = dump.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            inDeadlocks |= line.startsWith("Found one Java-level deadlock:");
            if (!inDeadlocks && line.startsWith("\"")) {
                java.util.regex.Matcher header = ANY_THREAD.matcher(line);
                inThread = header.matches() && javaThreads.contains(header.group(1));
            }
            boolean waitersFrame = i >= 2 && lines[i - 1].startsWith("\tat ") && lines[i - 2].startsWith("\t- waiting on <");
            boolean reLock = line.startsWith("\t- waiting to re-lock in wait() <") || (line.startsWith("\t- locked <") && waitersFrame);
            boolean deadlockBlank = inDeadlocks && line.isEmpty() && i + 1 < lines.length && lines[i + 1].startsWith("\"");
            if (inThread && !(reLock && !lines[i - 1].startsWith("\tat java.lang.Object.wait(")) && !deadlockBlank) {
                kept.add(line);
            }
        }
        return String.join("\n", kept);
    }

    private static final java.util.regex.Pattern JAVA_THREAD = java.util.regex.Pattern.compile("^\"(.*)\" #\\d+ .*");
    private static final java.util.regex.Pattern ANY_THREAD = java.util.regex.Pattern.compile("^\"(.*)\" .*");

    private static Result run(RootJdk jdk, String... args) {
        Result result = CliRun.run(args);
        assertEquals(0, result.exit(), jdk + ": " + String.join(" ", args) + "\n" + result);
        return result;
    }

    private static String pid(TargetJvm target) {
        return Long.toString(target.pid());
    }
}
