package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The linux-aarch64 agent, in an arm64 JVM (Debian 12's OpenJDK 17, in the arm64 root
 * {@code .ci/roots} makes) run by qemu-user on this x86-64 machine, attached by this x86-64 CLI:
 * the CLI must place the aarch64 agent and profiler (the target's /proc/pid/exe is qemu's, its
 * libjvm.so arm64's). threads against the target's own record, stacks -l against the jstack -l
 * of the target's JDK, deadlocks, and profile with itimer (qemu-user has no perf_events). And the
 * linux-aarch64 release archive's CLI run by that arm64 JDK.
 */
class Aarch64IT {
    private static final List<Integer> ARM64_ELF_MACHINE = List.of(0xb7, 0x00);
    /** A CLI run under qemu on a loaded machine takes tens of seconds; past this it hangs. */
    private static final long HANG_SECONDS = 300;

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

            assertThreadsAsTheTargetSeesThem(target, Aarch64IT::run);
            assertAgentOfTheTargetsMachine(target.pid());
            assertStacksAsTheTargetsJstack(jdk, target, Aarch64IT::run, "-l");

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

    /**
     * The linux-aarch64 release archive, unpacked in the target's own /tmp inside the arm64 root,
     * its launcher run there (in the target's root and mount namespace) with the root's arm64 JDK:
     * the kernel hands each arm64 program, the launcher's bash and java among them, to qemu-user
     * (binfmt_misc, which {@code .ci/roots} registers). The CLI itself on aarch64.
     */
    @Test
    void theAarch64ReleaseArchiveRunsOnTheArm64Jdk() throws Exception {
        RootJdk jdk = DebianRoots.arm64Jdk();
        Path archive = ReleaseArchiveIT.archive("linux-aarch64");
        Path library = Path.of(CliRun.run("agent-path").out().strip());
        Path classes = DebianRoots.classes(jdk.root(), library, LocksTarget.class, AllocTarget.class);
        try (TargetJvm target = TargetJvm.startWrapped(DebianRoots.underQemu(jdk.root()), classes, jdk.inside(), LocksTarget.class, List.of())) {
            String pid = Long.toString(target.pid());
            Path tmp = Path.of("/proc", pid, "root", "tmp");
            Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", tmp.toString()).inheritIO().start();
            assertEquals(0, tar.waitFor());
            String launcher = "/tmp/" + archive.getFileName().toString().replace("-linux-aarch64.tar.gz", "") + "/bin/jvmti-cli";
            assertTrue(Files.isExecutable(tmp.getParent().resolve(launcher.substring(1))), launcher);
            Function<String[], Result> cli = args -> runInRoot(jdk, target.pid(), launcher, args);

            assertThreadsAsTheTargetSeesThem(target, cli);
            // without -l: under qemu the arm64 CLI takes several times as long for stacks -l (docs/attach.md)
            assertStacksAsTheTargetsJstack(jdk, target, cli);
            // the CLI that ran was the root's arm64 java: the library it loads beside the target's is arm64's alone
            try (Stream<Path> placed = Files.list(tmp.resolve(".jvmti-cli-lib-0"))) {
                List<Path> libraries = placed.filter(f -> f.getFileName().toString().endsWith(".so")).toList();
                assertFalse(libraries.isEmpty(), "no library placed in " + tmp.resolve(".jvmti-cli-lib-0"));
                for (Path file : libraries) {
                    byte[] header = Files.readAllBytes(file);
                    assertEquals(ARM64_ELF_MACHINE, List.of(header[18] & 0xff, header[19] & 0xff), "e_machine of " + file);
                }
            }
        }
    }

    /** Each Java thread's name and state, as the CLI lists them and as the target itself sees them (three tries: states change). */
    private static void assertThreadsAsTheTargetSeesThem(TargetJvm target, Function<String[], Result> cli) {
        String pid = Long.toString(target.pid());
        Map<Long, String> ours = new TreeMap<>();
        Map<Long, String> theirs = new TreeMap<>();
        for (int attempt = 0; attempt < 3 && (ours.isEmpty() || !ours.equals(theirs)); attempt++) {
            ours.clear();
            theirs.clear();
            Result threads = cli.apply(new String[] {"threads", pid, "--json"});
            assertEquals(0, threads.exit(), threads.toString());
            for (JsonNode t : Json.parse(threads.out()).path("threads")) {
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
    }

    /** stacks against the jstack of the target's own arm64 JDK, each with the options given (three tries: states change). */
    private static void assertStacksAsTheTargetsJstack(RootJdk jdk, TargetJvm target, Function<String[], Result> cli, String... options) {
        String pid = Long.toString(target.pid());
        List<String> jstackArguments = new ArrayList<>(List.of(options));
        jstackArguments.add(pid);
        List<String> stacksArguments = new ArrayList<>(List.of("stacks", pid));
        stacksArguments.addAll(List.of(options));
        List<String> differences = List.of();
        for (int attempt = 0; attempt < 3; attempt++) {
            String jstack = DebianRoots.toolOutputUnderQemu(jdk, target.pid(), "jstack", jstackArguments.toArray(String[]::new));
            Result stacks = cli.apply(stacksArguments.toArray(String[]::new));
            assertEquals(0, stacks.exit(), stacks.toString());
            differences = JstackFormatIT.differences(DebianRootsIT.asHotSpotPrintsIt(jstack), stacks.out());
            if (differences.isEmpty()) {
                break;
            }
        }
        assertEquals(List.of(), differences, String.join(" ", stacksArguments) + " against the arm64 JDK's own jstack " + String.join(" ", jstackArguments));
    }

    /**
     * The launcher inside the target's root and mount namespace, with the root's JDK on JAVA_HOME and
     * a cache directory in the target's /tmp (the first run makes the CLI's class-data-sharing archive there).
     */
    private static Result runInRoot(RootJdk jdk, long pid, String launcher, String... args) {
        List<String> command = new ArrayList<>(List.of("nsenter", "-t", Long.toString(pid), "-m", "-r", "-w", launcher));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().putAll(Map.of("JAVA_HOME", jdk.home().toString(), "PATH", "/usr/bin:/bin", "HOME", "/root",
                "XDG_CACHE_HOME", "/tmp/cache"));
        try {
            Process process = builder.start();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            if (!process.waitFor(HANG_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(command + " did not finish in " + HANG_SECONDS + " s");
            }
            return new Result(process.exitValue(), out.get(), err.get());
        } catch (IOException | ExecutionException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
