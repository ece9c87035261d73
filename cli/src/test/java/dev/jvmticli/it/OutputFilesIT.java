package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jvmticli.targets.AllocTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 37: what root's CLI writes where another user can write (a dump directory, {@code --html},
 * the shell's {@code > FILE}), files that hold a JVM's secrets, a full and a read-only file system,
 * and a sampling interval that would slow the target. Each attack is made by a real second user
 * (useradd) in /tmp; each test failed on the code before (see the test's comment).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutputFilesIT {
    private static final String SECRET = "root's secret\n";

    @TempDir
    Path temp;

    private TargetJvm target;
    /** A root-only file the attacks aim at. */
    private Path secret;
    /** A directory like /tmp (root's, 1777), where the other user plants what she likes. */
    private Path shared;

    @BeforeAll
    void start() {
        target = TargetJvm.start(Jdks.current(), AllocTarget.class).profiled(); // a dump with --profile loads async-profiler
    }

    @AfterAll
    void stop() {
        target.close();
    }

    @BeforeEach
    void plantingGround() throws IOException {
        secret = temp.resolve("secret");
        Files.writeString(secret, SECRET);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        shared = Files.createTempDirectory(Path.of("/tmp"), "jvmti-cli-it-shared-");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(shared, "unix:mode", 01777);
    }

    @AfterEach
    void removePlantingGround() throws Exception {
        assertEquals(0, new ProcessBuilder("rm", "-rf", "--", shared.toString()).start().waitFor());
    }

    /**
     * Her empty 0777 directory in /tmp: once the dump has begun she plants a link at the temporary
     * name of summary.md and one at the zip's, next to the directory. Old code: exit 0, the secret
     * overwritten with the summary (written through the link) and then the zip.
     */
    @Test
    void aDumpDirectoryAnotherUserMadeIsRefused() throws Exception {
        OtherUser.assume();
        Path hers = shared.resolve("incident");
        asOtherUser("mkdir -m 0777 " + hers + " && ln -s " + secret + " " + shared + "/.incident.zip.tmp");
        Process planter = startAsOtherUser("for i in $(seq 200); do if [ -e " + hers + "/jvm.json ]; then ln -s " + secret + " " + hers
                + "/.summary.md.tmp; exit 0; fi; sleep 0.05; done; exit 1");
        try {
            Result result = CliRun.run("dump", pid(), "--out", hers.toString(), "--interval", "1s", "--zip");
            assertEquals(2, result.exit(), result.toString());
            assertEquals("jvmti-cli: " + hers + " belongs to user " + OtherUser.NAME + ", not to root who runs jvmti-cli: dump writes"
                    + " only into a directory of its own user that no one else can write", result.err().lines().findFirst().orElseThrow());
        } finally {
            planter.destroy();
            planter.waitFor();
        }
        assertSecretIntact();
        assertEquals(List.of(), list(hers), "nothing written in her directory");
        assertFalse(Files.exists(shared.resolve("incident.zip"), LinkOption.NOFOLLOW_LINKS));
    }

    /** Old code: exit 0, the dump written into a directory everyone can write. */
    @Test
    void aDumpDirectoryOthersCanWriteOrALinkIsRefused() throws Exception {
        Path open = Files.createDirectory(temp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxr-x"));
        Result result = CliRun.run("dump", pid(), "--out", open.toString());
        assertEquals(2, result.exit(), result.toString());
        assertTrue(result.err().startsWith("jvmti-cli: " + open + " can be written by others (mode rwxrwxr-x): "), result.err());

        Path own = Files.createDirectory(temp.resolve("own"));
        Path link = Files.createSymbolicLink(shared.resolve("link"), own);
        result = CliRun.run("dump", pid(), "--out", link.toString());
        assertEquals(2, result.exit(), result.toString());
        assertTrue(result.err().startsWith("jvmti-cli: " + link + " is a symbolic link (not followed): "), result.err());
        assertEquals(List.of(), list(own));
    }

    /**
     * Old code: the zip written through her link at .incident.zip.tmp next to the directory (the
     * secret overwritten), and every file 0644 in a 0755 directory.
     */
    @Test
    void aNewDumpDirectoryIsPrivateAndTheZipIsMadeInsideIt() throws Exception {
        OtherUser.assume();
        Path out = shared.resolve("incident");
        asOtherUser("ln -s " + secret + " " + shared + "/.incident.zip.tmp");
        Result result = CliRun.run("dump", pid(), "--out", out.toString(), "--interval", "200ms", "--zip");
        assertEquals(0, result.exit(), result.toString());
        assertSecretIntact();
        assertEquals("rwx------", mode(out));
        try (Stream<Path> files = Files.walk(out)) {
            for (Path file : files.skip(1).toList()) {
                assertEquals(Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS) ? "rwx------" : "rw-------", mode(file), file.toString());
                assertFalse(file.getFileName().toString().endsWith(".tmp"), file.toString());
            }
        }
        assertEquals("rw-------", mode(shared.resolve("incident.zip")));
    }

    /** Old code: both wrote the page or the table into the secret through her link. */
    @Test
    void htmlAndTheShellsRedirectionFollowNoLinkAndOverwriteNoOtherUsersFile() throws Exception {
        OtherUser.assume();
        asOtherUser("ln -s " + secret + " " + shared + "/flame.html && echo hers > " + shared + "/hers.txt");
        Result html = CliRun.run("contention", pid(), "--duration", "100ms", "--html", shared.resolve("flame.html").toString());
        assertEquals(2, html.exit(), html.toString());
        assertEquals("jvmti-cli: --html " + shared.resolve("flame.html") + " is a symbolic link (not followed): remove it or choose another name",
                html.err().lines().findFirst().orElseThrow());

        Result shell = CliRun.run("shell", pid(), "-c", "threads > " + shared.resolve("flame.html") + "; threads >> " + shared.resolve("hers.txt"));
        assertEquals(2, shell.exit(), shell.toString());
        assertEquals("jvmti-cli: " + shared.resolve("flame.html") + " is a symbolic link (not followed): remove it or choose another name\n"
                + "jvmti-cli: " + shared.resolve("hers.txt") + " belongs to user " + OtherUser.NAME + ": not overwritten\n", shell.err());
        assertSecretIntact();
        assertEquals("hers\n", Files.readString(shared.resolve("hers.txt")));

        Path mine = shared.resolve("mine.txt");
        Result written = CliRun.run("shell", pid(), "-c", "threads > " + mine + "; threads >> " + mine);
        assertEquals(0, written.exit(), written.toString());
        assertTrue(Files.readString(mine).lines().filter(l -> l.startsWith("ID  KIND")).count() == 2, Files.readString(mine));
    }

    /** Old code: "internal error: java.nio.file.FileSystemException ...", a 0-byte temporary, and a manifest with no error. */
    @Test
    void aFullFileSystemIsOneLineWithNoTemporaryLeftAndTheErrorInTheManifest() throws Exception {
        Path mount = mountTmpfs("size=24k");
        try {
            Path out = mount.resolve("incident");
            Result result = CliRun.run("dump", pid(), "--out", out.toString());
            assertEquals(1, result.exit(), result.toString());
            assertEquals(1, result.err().lines().count(), result.err());
            assertTrue(result.err().matches("jvmti-cli: cannot write " + out + "/\\S+: No space left on device\n"), result.err());
            try (Stream<Path> files = Files.walk(out)) {
                assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(".tmp")).toList());
            }
            if (Files.exists(out.resolve("index.json"))) {
                String error = Json.parse(Files.readString(out.resolve("index.json"))).path("errors").path(0).asText();
                assertEquals(result.err().strip(), "jvmti-cli: " + error);
            }
        } finally {
            unmount(mount);
        }
    }

    /**
     * A dump that fails part-way ends every session it started, so the shell, whose connection
     * outlives the dump, can start each again. Old code: pauses, contention and profile answered
     * "already running for this client (busy)".
     */
    @Test
    void aDumpThatFailsEndsItsSessionsSoTheShellCanStartThemAgain() throws Exception {
        Path mount = mountTmpfs("size=24k");
        try {
            Path out = mount.resolve("incident");
            String churn = AllocTarget.class.getName() + ".churn";
            Result shell = CliRun.run("shell", pid(), "-c", "dump --out " + out + " --profile 10s --trace " + churn
                    + "; pauses --duration 300ms; contention --duration 300ms; profile --duration 300ms; trace " + churn + " --duration 300ms");
            assertEquals(1, shell.exit(), shell.toString());
            List<String> failures = shell.err().lines().filter(line -> line.startsWith("jvmti-cli: ")).toList();
            assertEquals(1, failures.size(), shell.err());
            assertTrue(failures.get(0).matches("jvmti-cli: cannot write " + out + "/\\S+: No space left on device"), shell.err());
            String report = shell.out();
            assertTrue(report.contains("Stop-the-world pauses from "), report);
            assertTrue(report.contains("contended monitor enters on "), report);
            assertTrue(report.contains("jvmti-cli's own work, left out: "), report);
            assertTrue(report.contains("Traced 1 method(s) in 1 class(es)"), report);
        } finally {
            unmount(mount);
        }
    }

    /** Old code: "internal error: java.nio.file.FileSystemException ...: Read-only file system". */
    @Test
    void aReadOnlyFileSystemIsOneLine() throws Exception {
        Path mount = mountTmpfs("ro,size=64k");
        try {
            Result missing = CliRun.run("dump", pid(), "--out", mount.resolve("incident").toString());
            assertEquals(1, missing.exit(), missing.toString());
            assertEquals("jvmti-cli: cannot create " + mount.resolve("incident") + ": Read-only file system\n", missing.err());
            Result empty = CliRun.run("dump", pid(), "--out", mount.toString());
            assertEquals(1, empty.exit(), empty.toString());
            assertEquals("jvmti-cli: cannot write " + mount.resolve("jvm.json") + ": Read-only file system\n", empty.err());
        } finally {
            unmount(mount);
        }
    }

    /** Old code: accepted, and at 1 byte the target allocated 60 times slower. */
    @Test
    void anAllocIntervalThatWouldSlowTheTargetNeedsForce() {
        Result refused = CliRun.run("alloc", pid(), "--interval", "1", "--duration", "100ms");
        assertEquals(2, refused.exit(), refused.toString());
        assertEquals("jvmti-cli: --interval below 64k slows the target's allocation (at 1 byte 60 times or more, at 16k by a third):"
                + " the lowest allowed is 64k; add --force if you mean it", refused.err().lines().findFirst().orElseThrow());
        Result forced = CliRun.run("alloc", pid(), "--interval", "8k", "--force", "--duration", "300ms", "--json");
        assertEquals(0, forced.exit(), forced.toString());
        assertEquals(8192, Json.parse(forced.out()).path("intervalBytes").asLong(), forced.out());
    }

    private void assertSecretIntact() throws IOException {
        assertEquals(SECRET, new String(Files.readAllBytes(secret), StandardCharsets.ISO_8859_1), "the root-only file is as it was");
    }

    private String pid() {
        return Long.toString(target.pid());
    }

    private static void asOtherUser(String script) throws Exception {
        Process process = startAsOtherUser(script);
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), script + ": " + output);
    }

    private static Process startAsOtherUser(String script) throws IOException {
        List<String> command = new ArrayList<>(OtherUser.as());
        command.addAll(List.of("sh", "-c", script));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** A small tmpfs of its own on a new directory: nothing global is touched, and it is unmounted after. */
    private Path mountTmpfs(String options) throws Exception {
        assumeTrue((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0, "mounting needs root");
        Path mount = Files.createTempDirectory(temp, "mnt");
        Process process = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options + ",mode=0700", "tmpfs", mount.toString())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assumeTrue(process.waitFor() == 0, "cannot mount a tmpfs here: " + output);
        return mount;
    }

    private static void unmount(Path mount) throws Exception {
        assertEquals(0, new ProcessBuilder("umount", mount.toString()).inheritIO().start().waitFor());
    }

    private static String mode(Path file) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.sorted().toList();
        }
    }
}
