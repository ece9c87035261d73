package dev.jvmticli.payload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentLibraryTest {
    @TempDir
    Path base;

    private static byte[] bundled() throws IOException {
        try (InputStream in = AgentLibrary.class.getResourceAsStream("/dev/jvmticli/native/" + AgentLibrary.platform() + "/libjvmticli.so")) {
            return in.readAllBytes();
        }
    }

    @Test
    void extractsOnceByContentHashAsAReadOnlyFile() throws IOException {
        Path first = new AgentLibrary(base).extract();
        Path second = new AgentLibrary(base).extract();
        assertEquals(first, second);
        assertTrue(first.getFileName().toString().matches("libjvmticli-[0-9a-f]{32}\\.so"));
        assertArrayEquals(bundled(), Files.readAllBytes(first));
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(first);
        assertEquals(PosixFilePermissions.fromString("r--r--r--"), mode);
        assertEquals(PosixFilePermissions.fromString("rwxr-xr-x"), Files.getPosixFilePermissions(first.getParent()));
        try (var listing = Files.list(first.getParent())) {
            assertEquals(1, listing.count(), "no temporary files left behind");
        }
    }

    @Test
    void handsOutTheProfilingLibraryTheSameWayBesideTheAgent() throws IOException {
        Path agent = new AgentLibrary(base).extract();
        Path profiler = AgentLibrary.profiler(base).extract();
        assertEquals(agent.getParent(), profiler.getParent());
        assertTrue(profiler.getFileName().toString().matches("libasyncProfiler-[0-9a-f]{32}\\.so"), profiler.toString());
        assertEquals(PosixFilePermissions.fromString("r--r--r--"), Files.getPosixFilePermissions(profiler));
        assertEquals(profiler, AgentLibrary.profiler(base).extract());
    }

    @Test
    void replacesATamperedCopy() throws IOException {
        Path library = new AgentLibrary(base).extract();
        Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rw-r--r--"));
        Files.write(library, new byte[] {1, 2, 3});
        Path again = new AgentLibrary(base).extract();
        assertArrayEquals(bundled(), Files.readAllBytes(again));
    }

    @Test
    void neverFollowsALinkPlantedInPlaceOfTheLibrary() throws IOException {
        Path library = new AgentLibrary(base).extract();
        Files.delete(library);
        Path elsewhere = Files.writeString(base.resolve("victim"), "do not touch");
        Files.createSymbolicLink(library, elsewhere);
        Path again = new AgentLibrary(base).extract();
        assertFalse(Files.isSymbolicLink(again));
        assertArrayEquals(bundled(), Files.readAllBytes(again));
        assertEquals("do not touch", Files.readString(elsewhere));
    }

    @Test
    void leavesADirectoryThatIsALinkOrWritableByOthersAloneAndUsesAFreshOne() throws IOException {
        Path real = Files.createDirectory(base.resolve("real"));
        AgentLibrary probe = new AgentLibrary(base);
        Path expected = probe.extract().getParent();
        deleteTree(expected);
        Files.createSymbolicLink(expected, real);
        Path elsewhere = probe.extract();
        assertFreshDirectory(expected, elsewhere);
        try (var listing = Files.list(real)) {
            assertEquals(0, listing.count(), "nothing written through the link");
        }
        Files.delete(expected);

        Files.createDirectory(expected);
        Files.setPosixFilePermissions(expected, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertFreshDirectory(expected, probe.extract());
        assertEquals(PosixFilePermissions.fromString("rwxrwxrwx"), Files.getPosixFilePermissions(expected), "left alone");
    }

    @Test
    void leavesADirectoryOfAnotherUserAloneAndUsesAFreshOne() throws IOException {
        assumeTrue(((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0, "chown needs root");
        AgentLibrary probe = new AgentLibrary(base);
        Path expected = probe.extract().getParent();
        Files.setAttribute(expected, "unix:uid", 65534);
        Path fresh = probe.extract();
        assertFreshDirectory(expected, fresh);
        assertEquals(65534, Files.getAttribute(expected, "unix:uid"));
        assertEquals(fresh, probe.extract(), "the next run finds the same fresh directory");
    }

    @Test
    void refusesABaseDirectoryOthersMayRenameEntriesIn() throws IOException {
        Path open = Files.createDirectory(base.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        IOException refused = assertThrows(IOException.class, () -> new AgentLibrary(open).extract());
        assertTrue(refused.getMessage().contains("refusing to use " + open), refused.getMessage());
    }

    private static void assertFreshDirectory(Path squatted, Path library) throws IOException {
        assertTrue(library.getParent().getFileName().toString().matches(squatted.getFileName() + "-[0-9a-f]{16}"), library.toString());
        assertArrayEquals(bundled(), Files.readAllBytes(library));
        assertEquals(PosixFilePermissions.fromString("rwxr-xr-x"), Files.getPosixFilePermissions(library.getParent(), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void neverWritesThroughALinkPlantedAtTheTemporaryName() throws IOException {
        Path library = new AgentLibrary(base).extract();
        Files.delete(library);
        String name = library.getFileName().toString();
        Path temporary = library.resolveSibling(name.substring(0, name.length() - 3) + "." + ProcessHandle.current().pid() + ".tmp");
        Path victim = Files.writeString(base.resolve("victim"), "do not touch");
        Files.createSymbolicLink(temporary, victim);
        Path again = new AgentLibrary(base).extract();
        assertArrayEquals(bundled(), Files.readAllBytes(again));
        assertEquals("do not touch", Files.readString(victim));
        assertFalse(Files.exists(temporary, LinkOption.NOFOLLOW_LINKS));
    }

    private static void deleteTree(Path directory) throws IOException {
        try (var listing = Files.list(directory)) {
            for (Path child : listing.toList()) {
                Files.delete(child);
            }
        }
        Files.delete(directory);
    }
}
