package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Container;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.PrivateTmp;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What root's CLI writes into a file system another user controls, tried as that user would
 * (issue 37 items 1 and 4, issue 32 item 2): links and swaps planted in her JVM's /tmp, a squatted
 * library directory, a FIFO next to a file named libjvm.so; and a JVM in a plain chroot.
 */
class AttachFilesIT {
    private static final Path PROTECTED_SYMLINKS = Path.of("/proc/sys/fs/protected_symlinks");
    private static final int ROOT_RUNS = 20;

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    /**
     * Her JVM runs in her own user and mount namespaces with her directory as /tmp; while root
     * attaches, she keeps swapping the library directory with a decoy (RENAME_EXCHANGE) and turns
     * every file root makes in the decoy into a link to a root-only file. The old CLI made that
     * file 0444 within 6 runs (a path-based chmod after a check); now every file is made relative
     * to an open directory, as her: the secret stays root's and 0600, and nothing in her /tmp is root's.
     */
    @Test
    void theLibraryIsNeverWrittenThroughALinkOrASwapOfTheTargetsUser() throws Exception {
        OtherUser.assume();
        Path work = readableDirectory("jvmti-cli-attack-");
        Path secretDirectory = Files.createTempDirectory(Path.of("/var/tmp"), "jvmti-cli-secret-");
        String protectedSymlinks = Files.readString(PROTECTED_SYMLINKS).strip();
        Process attacker = null;
        try {
            Path herTmp = Files.createDirectory(work.resolve("tmp"));
            Files.setAttribute(herTmp, "unix:uid", OtherUser.uid());
            Files.setPosixFilePermissions(secretDirectory, PosixFilePermissions.fromString("rwx--x--x"));
            Path secret = Files.writeString(secretDirectory.resolve("secret"), "root only\n");
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
            Path attack = compile("attacks/swap_and_link.c", work.resolve("swap_and_link"));
            setProtectedSymlinks("0"); // as on this kernel by default: links in sticky directories are followed

            List<String> herNamespaces = new ArrayList<>(OtherUser.as());
            herNamespaces.addAll(List.of("unshare", "-Urm", "sh", "-c", "mount --bind " + herTmp + " /tmp && cd /tmp && exec \"$0\" \"$@\""));
            try (TargetJvm target = TargetJvm.startWrapped(herNamespaces, Container.classPath(), Jdks.current(), CounterTarget.class, List.of())) {
                List<String> attackCommand = new ArrayList<>(OtherUser.as());
                attackCommand.addAll(List.of(attack.toString(), herTmp.toString(), secret.toString(), "600"));
                attacker = new ProcessBuilder(attackCommand).redirectErrorStream(true).start();
                for (int run = 0; run < ROOT_RUNS; run++) {
                    Result result = CliRun.run("threads", Long.toString(target.pid()));
                    assertTrue(result.exit() == 6 || result.exit() == 7, "run " + run + ": " + result);
                    assertEquals(1, result.err().lines().count(), result.toString());
                }
                run(List.of("kill", "-TERM", Long.toString(attacker.pid()))); // it prints how many links it planted and ends
                assertTrue(attacker.waitFor(10, TimeUnit.SECONDS));
                String planted = new String(attacker.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                assertTrue(Long.parseLong(planted) > 0, "the attack ran and planted links: " + planted);
                assertEquals("root only\n", Files.readString(secret));
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret, LinkOption.NOFOLLOW_LINKS)));
                assertEquals(0, Files.getAttribute(secret, "unix:uid", LinkOption.NOFOLLOW_LINKS));
                try (Stream<Path> files = Files.walk(herTmp)) {
                    List<Path> roots = files.filter(f -> owner(f) == 0).toList();
                    assertEquals(List.of(), roots, "the CLI made files in her /tmp as her");
                }
                Result last = CliRun.run("threads", Long.toString(target.pid()));
                assertEquals(7, last.exit(), last.toString());
                assertTrue(last.err().contains("runs in a user namespace of its own"), last.toString());
            }
        } finally {
            if (attacker != null) {
                attacker.destroyForcibly();
            }
            setProtectedSymlinks(protectedSymlinks);
            deleteTree(work);
            deleteTree(secretDirectory);
        }
    }

    /**
     * A JVM in a plain chroot (the same mount namespace, another root) gets the library in its own
     * /tmp, through /proc/<pid>/root; the old CLI gave it a path in the CLI's /tmp (exit 6, "cannot
     * open shared object file"). Another user squats the library directory in that /tmp: it is
     * left alone and a fresh one used.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void aJvmInAPlainChrootIsAttachedTo(Jdks.Jdk jdk) throws Exception {
        OtherUser.assume();
        Path root = readableDirectory("jvmti-cli-chroot-");
        List<Path> mounts = new ArrayList<>();
        try {
            for (String dir : List.of("usr", "etc", "proc", "dev", "classes")) {
                Files.createDirectory(root.resolve(dir));
            }
            for (String link : List.of("lib", "lib64", "bin")) {
                Files.createSymbolicLink(root.resolve(link), Path.of("usr", link));
            }
            Path tmp = Files.createDirectory(root.resolve("tmp"));
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
            assertEquals(0, run(List.of("chmod", "1777", tmp.toString())).exit());
            for (String dir : List.of("/usr", "/etc", "/proc", "/dev")) {
                bind(Path.of(dir), root.resolve(dir.substring(1)), mounts);
            }
            bind(Container.classPath(), root.resolve("classes"), mounts);
            Path squatted = tmp.resolve(".jvmti-cli-lib-0");
            List<String> squat = new ArrayList<>(OtherUser.as());
            squat.addAll(List.of("mkdir", "-m", "777", squatted.toString()));
            assertEquals(0, run(squat).exit());

            List<String> chroot = List.of("chroot", root.toString(), "sh", "-c", "cd /tmp && exec \"$0\" \"$@\"");
            try (TargetJvm target = TargetJvm.startWrapped(chroot, Path.of("/classes"), jdk, CounterTarget.class, List.of())) {
                String pid = Long.toString(target.pid());
                assertEquals(Files.readSymbolicLink(Path.of("/proc/self/ns/mnt")), Files.readSymbolicLink(Path.of("/proc", pid, "ns", "mnt")),
                        "the chroot has no mount namespace of its own");
                assertFalse(TargetProcess.of(target.pid()).seesSameFile(Path.of("/tmp")));

                Result threads = CliRun.run("threads", pid, "--json");
                assertEquals(0, threads.exit(), threads.toString());
                Json.find(Json.parse(threads.out()).path("threads"), "name", "counter");
                try (Stream<Path> entries = Files.list(squatted)) {
                    assertEquals(0, entries.count(), "the squatted directory is left alone");
                }
                assertEquals(OtherUser.uid(), owner(squatted));
                try (Stream<Path> libraries = Files.list(tmp)) {
                    List<Path> fresh = libraries.filter(p -> p.getFileName().toString().matches("\\.jvmti-cli-lib-0-[0-9a-f]{16}")).toList();
                    assertEquals(1, fresh.size(), fresh.toString());
                    assertEquals(0, owner(fresh.get(0)));
                    try (Stream<Path> copies = Files.list(fresh.get(0))) {
                        assertTrue(copies.anyMatch(p -> p.getFileName().toString().matches("libjvmticli-[0-9a-f]{32}\\.so")));
                    }
                }
                assertTrue(Files.exists(tmp.resolve(".jvmti-cli-0/" + pid + ".sock"), LinkOption.NOFOLLOW_LINKS), "the socket is in its /tmp");
                assertEquals(0, CliRun.run("detach", pid).exit());
            }
        } finally {
            boolean unmounted = true;
            for (int i = mounts.size() - 1; i >= 0; i--) {
                unmounted &= run(List.of("umount", mounts.get(i).toString())).exit() == 0;
            }
            // never delete through a bind mount of /usr or /etc that is still there
            if (unmounted && !Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + root + "/")) {
                deleteTree(root);
            }
        }
    }

    /**
     * Another user makes /tmp/.jvmti-cli-lib-0 first (a directory of hers, or a link): root's
     * attach used to fail with exit 6 for as long as it stayed; now the library goes to a fresh
     * directory and the squatted name is left alone. In a private mount namespace with its own
     * /tmp, so that other test runs on this machine are not locked out.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mkdir -m 777 /tmp/.jvmti-cli-lib-0", "ln -s /etc /tmp/.jvmti-cli-lib-0"})
    void aSquattedLibraryDirectoryLocksNobodyOut(String squat) throws Exception {
        OtherUser.assume();
        String java = Jdks.current().java().toString();
        String script = String.join("\n",
                "set -e",
                PrivateTmp.mountEmptyTmp(),
                String.join(" ", OtherUser.as()) + " " + squat,
                "cd /tmp",
                "mkfifo /tmp/target.in",
                java + " -cp " + Container.classPath() + " " + CounterTarget.class.getName() + " < /tmp/target.in > /tmp/target.out 2>&1 &",
                "exec 3> /tmp/target.in", // the target's stdin, open until this script ends
                "for i in $(seq 1 300); do grep -q READY /tmp/target.out && break; sleep 0.1; done",
                "pid=$(sed -n 's/^READY //p' /tmp/target.out)",
                "set +e",
                java + " -jar " + CliProcess.jar() + " threads $pid > /tmp/cli.out 2>&1",
                "echo \"EXIT $?\"",
                "head -c 2000 /tmp/cli.out",
                "echo \"SQUATTED $(ls -A /tmp/.jvmti-cli-lib-0/ | grep -c libjvmticli)\"",
                "for d in /tmp/.jvmti-cli-lib-0-*; do echo \"FRESH $(stat -c %u $d) $(ls $d)\"; done",
                "kill $pid");
        Result result = run(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c", script));
        assertTrue(result.out().contains("EXIT 0\n"), result.toString());
        assertTrue(result.out().contains("SQUATTED 0\n"), "nothing written through the squatted name: " + result);
        assertEquals(List.of(true), result.out().lines().filter(line -> line.startsWith("FRESH"))
                .map(line -> line.matches("FRESH 0 libjvmticli-[0-9a-f]{32}\\.so")).toList(), "one fresh directory of root's: " + result);
    }

    /**
     * Another user's process maps a file named libjvm.so, with FIFOs (and a link to one) where a
     * JDK has its release file: `list` and a lookup by name used to block in open() forever; now
     * they read a release file only where nobody but root or this user could have put it.
     */
    @Test
    void discoveryNeverOpensAnotherUsersFifo() throws Exception {
        OtherUser.assume();
        Path work = readableDirectory("jvmti-cli-fifo-");
        Process fake = null;
        try {
            Path jdk = work.resolve("jdk");
            Path server = Files.createDirectories(jdk.resolve("lib/server"));
            Path library = server.resolve("libjvm.so");
            assertEquals(0, run(List.of("sh", "-c", "echo 'int not_a_jvm;' | gcc -shared -fPIC -x c -o " + library + " -")).exit());
            for (Path fifo : List.of(server.resolve("release"), jdk.resolve("release"), work.resolve("release"))) {
                assertEquals(0, run(List.of("mkfifo", "-m", "666", fifo.toString())).exit());
            }
            Files.createSymbolicLink(jdk.resolve("lib/release"), server.resolve("release"));
            assertEquals(0, run(List.of("chown", "-R", "-h", OtherUser.NAME, work.toString())).exit());

            List<String> command = new ArrayList<>(OtherUser.as());
            command.addAll(List.of("env", "LD_PRELOAD=" + library, "sleep", "300"));
            fake = new ProcessBuilder(command).start();
            long pid = fake.pid();
            waitUntilMapped(pid, library);

            Result list = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CliRun.run("list"));
            assertEquals(0, list.exit(), list.toString());
            assertTrue(list.out().lines().anyMatch(line -> line.strip().startsWith(pid + " ")), list.toString());
            Result byName = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CliRun.run("threads", "NoJvmIsNamedThis"));
            assertEquals(2, byName.exit(), byName.toString());
        } finally {
            if (fake != null) {
                fake.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            deleteTree(work);
        }
    }

    private static void waitUntilMapped(long pid, Path library) throws Exception {
        for (int i = 0; i < 100; i++) {
            if (Files.readString(Path.of("/proc", Long.toString(pid), "maps")).contains(library.toString())) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(pid + " never mapped " + library);
    }

    /** A fresh root-owned directory under /var/tmp that every user can enter. */
    private static Path readableDirectory(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(Path.of("/var/tmp"), prefix);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    private static Path compile(String resource, Path binary) throws IOException, InterruptedException {
        Path source = binary.resolveSibling(binary.getFileName() + ".c");
        try (InputStream in = AttachFilesIT.class.getResourceAsStream("/" + resource)) {
            Files.copy(in, source);
        }
        Result gcc = run(List.of("gcc", "-O1", "-o", binary.toString(), source.toString()));
        assumeTrue(gcc.exit() == 0, "gcc: " + gcc);
        Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxr-xr-x"));
        return binary;
    }

    private static void bind(Path source, Path target, List<Path> mounts) throws IOException, InterruptedException {
        Result mount = run(List.of("mount", "--bind", source.toString(), target.toString()));
        assertEquals(0, mount.exit(), mount.toString());
        mounts.add(target);
    }

    private static void setProtectedSymlinks(String value) {
        try {
            Files.writeString(PROTECTED_SYMLINKS, value);
        } catch (IOException e) {
            // a container without a writable /proc/sys: the test runs with what the machine has
        }
    }

    private static int owner(Path file) {
        try {
            return (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return -1; // gone meanwhile
        }
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8), "");
    }

    /** Removes a tree without following links (mount points are unmounted before). */
    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
