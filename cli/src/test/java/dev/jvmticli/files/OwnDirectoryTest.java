package dev.jvmticli.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks and the descriptor-relative operations of OwnDirectory, on the real file system. */
class OwnDirectoryTest {
    @TempDir
    Path temp;

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void missingDirectoriesAreMade0700AndFiles0600() throws IOException {
        Path dir = temp.resolve("a/b/c");
        try (OwnDirectory own = OwnDirectory.open(dir); OutputStream out = own.createNew("file")) {
            out.write(1);
            try (OwnDirectory sub = own.subdirectory("round")) {
                sub.createNew("inner").close();
            }
        }
        for (Path made : new Path[] {temp.resolve("a"), temp.resolve("a/b"), dir, dir.resolve("round")}) {
            assertEquals("rwx------", mode(made), made.toString());
        }
        assertEquals("rw-------", mode(dir.resolve("file")));
        assertEquals("rw-------", mode(dir.resolve("round/inner")));
    }

    @Test
    void aLinkAForeignModeOrAFileIsRefused() throws IOException {
        Path target = Files.createDirectory(temp.resolve("target"));
        Path link = Files.createSymbolicLink(temp.resolve("link"), target);
        assertEquals(link + " is a symbolic link (not followed)", assertThrows(UnsafePathException.class, () -> OwnDirectory.open(link)).getMessage());
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx-w----"));
        assertTrue(assertThrows(UnsafePathException.class, () -> OwnDirectory.open(target)).getMessage().startsWith(target + " can be written by others"));
        Path file = Files.createFile(temp.resolve("file"));
        assertEquals(file + " is not a directory", assertThrows(UnsafePathException.class, () -> OwnDirectory.open(file)).getMessage());
        Path fifo = temp.resolve("fifo");
        assertEquals(0, run(new ProcessBuilder("mkfifo", fifo.toString())));
        assertEquals(fifo + " is not a directory", assertThrows(UnsafePathException.class, () -> OwnDirectory.open(fifo)).getMessage());
    }

    @Test
    void nothingIsWrittenOrReadThroughALinkInside() throws IOException {
        Path secret = Files.writeString(temp.resolve("secret"), "secret");
        Path dir = temp.resolve("dump");
        try (OwnDirectory own = OwnDirectory.open(dir)) {
            Files.createSymbolicLink(dir.resolve("planted"), secret);
            assertThrows(FileAlreadyExistsException.class, () -> own.createNew("planted"));
            assertEquals(dir.resolve("planted") + " is not a regular file",
                    assertThrows(UnsafePathException.class, () -> own.openRegularFile("planted")).getMessage());
            try (OutputStream out = own.createNew("mine")) {
                out.write('m');
            }
            try (InputStream in = own.openRegularFile("mine")) {
                assertEquals("m", new String(in.readAllBytes()));
            }
            Path beside = Files.createSymbolicLink(temp.resolve("dump.zip"), secret);
            own.moveOut("mine", "dump.zip");
            assertEquals("m", Files.readString(beside), "the link next to it was replaced, not followed");
            assertTrue(!Files.isSymbolicLink(beside));
        }
        assertEquals("secret", Files.readString(secret));
    }

    private static int run(ProcessBuilder command) {
        try {
            return command.start().waitFor();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
