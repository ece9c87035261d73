package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.AllocTarget;
import dev.jvmticli.targets.LocksTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.DebianRoots.RootJdk;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The linux-aarch64 agent, in an arm64 JVM (Debian 12's OpenJDK 17, in the arm64 root
 * {@code .ci/roots} makes) run by qemu-user on this x86-64 machine, attached by this x86-64 CLI:
 * the CLI must place the aarch64 agent and profiler (the target's /proc/pid/exe is qemu's, its
 * libjvm.so arm64's). threads against the target's own record, stacks -l against the jstack -l
 * of the target's JDK, deadlocks, and profile with itimer (qemu-user has no perf_events).
 */
class Aarch64IT {
    private static final List<Integer> ARM64_ELF_MACHINE = List.of(0xb7, 0x00);

    @Test
    void threadsStacksDeadlocksAndProfileOnAnArm64JvmUnderQemu() throws Exception {
        RootJdk jdk = DebianRoots.arm64Jdk();
        Path library = Path.of(CliRun.run("agent-path").out().strip());
        Path classes = DebianRoots.classes(jdk.root(), library, LocksTarget.class, AllocTarget.class);
        List<String> underQemu = DebianRoots.underQemu(jdk.root());
        try (TargetJvm target = TargetJvm.startWrapped(underQemu, classes, jdk.inside(), LocksTarget.class, List.of())) {
            String pid = Long.toString(target.pid());
            assertTrue(Files.readSymbolicLink(Path.of("/proc", pid, "exe")).toString().endsWith("/qemu-aarch64-static"),
                    "the target is run by qemu-user");

            Map<Long, String> ours = new TreeMap<>();
            Map<Long, String> theirs = new TreeMap<>();
            for (int attempt = 0; attempt < 3 && (ours.isEmpty() || !ours.equals(theirs)); attempt++) {
                ours.clear();
                theirs.clear();
                for (JsonNode t : Json.parse(run("threads", pid, "--json").out()).path("threads")) {
                    if (t.path("kind").asText("java").equals("java") && !t.path("agent").asBoolean() && !t.path("name").asText().equals("main")) {
                        ours.put(t.path("id").asLong(), t.path("name").asText() + " " + t.path("state").asText());
                    }
                }
                for (String entry : target.ask("threads").split(" ")) {
                    String[] parts = entry.split(":");
                    String name = new String(java.util.Base64.getDecoder().decode(parts[2]), java.nio.charset.StandardCharsets.UTF_8);
                    if (!name.equals("main")) {
                        theirs.put(Long.parseLong(parts[0]), name + " " + parts[1]);
                    }
                }
            }
            assertEquals(theirs, ours, "each thread's state, as the arm64 target itself sees it");
            assertAgentOfTheTargetsMachine(target.pid());

            List<String> differences = List.of();
            for (int attempt = 0; attempt < 3; attempt++) {
                String jstack = DebianRoots.toolOutputUnderQemu(jdk, target.pid(), "jstack", "-l", pid);
                differences = JstackFormatIT.differences(DebianRootsIT.asHotSpotPrintsIt(jstack), run("stacks", pid, "-l").out());
                if (differences.isEmpty()) {
                    break;
                }
            }
            assertEquals(List.of(), differences, "stacks -l against the arm64 JDK's own jstack -l");

            Result deadlocks = CliRun.run("deadlocks", pid);
            assertEquals(10, deadlocks.exit(), deadlocks.toString());
            for (String thread : List.of("\"mon-dl-a\":", "\"rl-dl-a\":", "\"ring-3\":")) {
                assertTrue(deadlocks.out().contains(thread), thread + " in " + deadlocks);
            }
        }
        try (TargetJvm target = TargetJvm.startWrapped(underQemu, classes, jdk.inside(), AllocTarget.class, List.of()).profiled()) {
            Result profile = run("profile", Long.toString(target.pid()), "--event", "itimer", "--duration", "2s");
            assertTrue(profile.out().contains("event itimer, engine itimer") && profile.out().contains("dev.jvmticli.targets.AllocTarget."),
                    profile.toString());
        }
    }

    /** The library the target mapped as the agent is an arm64 ELF file (e_machine 183), read as mapped: /proc/pid/map_files. */
    private static void assertAgentOfTheTargetsMachine(long pid) throws Exception {
        String mapping = Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps")).stream()
                .filter(line -> line.contains("/libjvmticli-") && line.split(" +")[2].equals("00000000")).findFirst()
                .orElseThrow(() -> new AssertionError("no agent library mapped in " + pid));
        byte[] header = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "map_files", mapping.split(" ")[0]));
        assertEquals(ARM64_ELF_MACHINE, List.of(header[18] & 0xff, header[19] & 0xff), "e_machine of the agent library mapped as " + mapping);
    }

    private static Result run(String... args) {
        Result result = CliRun.run(args);
        assertEquals(0, result.exit(), String.join(" ", args) + "\n" + result);
        return result;
    }
}
