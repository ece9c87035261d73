package dev.jvmticli.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file operations relative to a directory descriptor, on real files: links, FIFOs, swaps, another uid. */
class VerifiedDirectoryTest {
    private static final Duration NEVER_BLOCKS = Duration.ofSeconds(10);

    @TempDir
    Path base;

    @Test
    void createsNewFilesWithTheirModeAndNeverOverAnExistingName() throws IOException {
        try (VerifiedDirectory dir = VerifiedDirectory.openTrusted(base, FileIdentity.SELF)) {
            assertTrue(dir.createFile("a", "one".getBytes(StandardCharsets.UTF_8), 0444));
            assertEquals("r--r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(base.resolve("a"))));
            assertFalse(dir.createFile("a", "two".getBytes(StandardCharsets.UTF_8), 0444), "an existing name is not written");
            assertEquals("one", Files.readString(base.resolve("a")));
            dir.rename("a", "b");
            assertArrayEquals("one".getBytes(StandardCharsets.UTF_8), dir.readRegularFile("b", 100));
            assertTrue(dir.delete("b"));
            assertFalse(dir.delete("b"));
            assertNull(dir.statusOf("b"));
        }
    }

    @Test
    void neverFollowsALink() throws IOException {
        Path victim = Files.writeString(base.resolve("victim"), "untouched");
        Object mode = Files.getAttribute(victim, "unix:mode");
        Files.createSymbolicLink(base.resolve("link"), victim);
        Files.createSymbolicLink(base.resolve("dirlink"), base);
        try (VerifiedDirectory dir = VerifiedDirectory.openTrusted(base, FileIdentity.SELF)) {
            assertFalse(dir.createFile("link", new byte[] {1}, 0666));
            assertTrue(dir.statusOf("link").isSymbolicLink());
            assertThrows(IOException.class, () -> dir.readRegularFile("link", 100));
            assertThrows(IOException.class, () -> dir.subdirectory("dirlink"));
            assertTrue(dir.delete("link"), "the link itself is removed");
        }
        assertEquals("untouched", Files.readString(victim));
        assertEquals(mode, Files.getAttribute(victim, "unix:mode"));
    }

    @Test
    void neverBlocksOnAFifo() throws Exception {
        Path fifo = base.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        try (VerifiedDirectory dir = VerifiedDirectory.openTrusted(base, FileIdentity.SELF)) {
            assertTimeoutPreemptively(NEVER_BLOCKS, () -> assertThrows(IOException.class, () -> dir.readRegularFile("fifo", 100)));
            assertTimeoutPreemptively(NEVER_BLOCKS, () -> assertThrows(IOException.class, () -> dir.subdirectory("fifo")));
        }
    }

    @Test
    void worksInTheDirectoryItOpenedWhateverIsRenamedIntoItsPlace() throws IOException {
        Path real = Files.createDirectory(base.resolve("real"));
        try (VerifiedDirectory parent = VerifiedDirectory.openTrusted(base, FileIdentity.SELF);
             VerifiedDirectory dir = parent.subdirectory("real")) {
            Files.move(real, base.resolve("moved"));
            Path decoy = Files.createDirectory(base.resolve("real"));
            assertTrue(dir.createFile("file", new byte[] {7}, 0600));
            assertTrue(Files.exists(base.resolve("moved/file")));
            assertFalse(Files.exists(decoy.resolve("file"), LinkOption.NOFOLLOW_LINKS));
            assertEquals(Files.getAttribute(base.resolve("moved"), "unix:ino"), dir.status().inode());
        }
    }

    @Test
    void writesWithAnotherUsersCredentialsOnThisThreadOnly() throws IOException {
        assumeTrue(VerifiedDirectory.processUid() == 0, "switching credentials needs root");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path rootOnly = Files.createDirectory(base.resolve("root-only"));
        Files.setPosixFilePermissions(rootOnly, PosixFilePermissions.fromString("rwx------"));
        FileIdentity nobody = new FileIdentity(65534, 65534);
        try (VerifiedDirectory dir = VerifiedDirectory.openTrusted(base, nobody);
             VerifiedDirectory closed = dir.subdirectory("root-only")) {
            assertTrue(dir.makeDirectory("made", 0755));
            assertTrue(dir.createFile("file", new byte[] {1}, 0644));
            assertEquals(65534, Files.getAttribute(base.resolve("made"), "unix:uid"));
            assertEquals(65534, Files.getAttribute(base.resolve("file"), "unix:gid"));
            IOException denied = assertThrows(IOException.class, () -> closed.createFile("x", new byte[0], 0600));
            assertTrue(denied.getMessage().contains("Permission denied"), denied.getMessage());
        }
        Files.writeString(rootOnly.resolve("after"), "root again"); // the thread is root again
        assertEquals(0, Files.getAttribute(rootOnly.resolve("after"), "unix:uid"));
    }

    @Test
    void takesOneFileNameAtATime() throws IOException {
        try (VerifiedDirectory dir = VerifiedDirectory.openTrusted(base, FileIdentity.SELF)) {
            for (String bad : new String[] {"", ".", "..", "a/b", "/etc"}) {
                assertThrows(IllegalArgumentException.class, () -> dir.statusOf(bad), bad);
            }
        }
    }
}
