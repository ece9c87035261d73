package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.HeapDumpTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `heap --dump`: the JVM's own heap dumper writes the file as the JVM's user, in a directory as the
 * target sees it, and what it must not write to is refused before it is asked. The truth: the file's
 * owner and header read from outside, jcmd's GC.heap_info for the heap the dump holds, and a file
 * system mounted in the target's mount namespace only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeapDumpIT {
    static final byte[] HPROF_HEADER = "JAVA PROFILE 1.0.2\0".getBytes(StandardCharsets.US_ASCII);
    static final Pattern HEAP_USED = Pattern.compile("heap\\s+total [^\\n]*?used (\\d+)K");
    static final List<String> HEAP = List.of("-XX:+UseG1GC", "-Xms512m", "-Xmx512m", "-Xmn400m");
    static final long MIB = 1 << 20;

    Path classes;
    Path base;

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @BeforeAll
    void setUp() throws IOException {
        OtherUser.assume();
        classes = OtherUser.readableCopy(TargetJvm.testClasses());
        base = Files.createTempDirectory(Path.of("/var/tmp"), "jvmti-cli-heapdump-");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterAll
    void tearDown() throws Exception {
        if (classes != null) {
            OtherUser.delete(classes);
        }
        if (base != null) {
            run("rm", "-rf", base.toString());
        }
    }

    /**
     * Another user's JVM dumps all objects, then live ones only, then live ones gzipped, into her own
     * directory: each file hers, 0600, an hprof (gzip's when asked); the dump of every object about
     * the size jcmd says the heap used, the live one about the size it uses after (the garbage gone).
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void theJvmWritesTheDumpAsItsOwnUserAllLiveAndGzipped(Jdks.Jdk jdk) throws Exception {
        Path hers = base.resolve("hers-" + jdk.feature());
        Files.createDirectory(hers);
        run("chown", OtherUser.NAME, hers.toString());
        Files.setPosixFilePermissions(hers, PosixFilePermissions.fromString("rwx------"));
        try (TargetJvm target = TargetJvm.startWrapped(OtherUser.as(), classes, jdk, HeapDumpTarget.class, HEAP)) {
            String pid = Long.toString(target.pid());
            long usedBefore = heapUsed(jdk, pid);
            Result all = CliRun.run("heap", pid, "--dump", hers + "/all.hprof");
            long usedAfterAll = heapUsed(jdk, pid);
            Result live = CliRun.run("heap", pid, "--dump", hers + "/live.hprof", "--live");
            long usedAfterLive = heapUsed(jdk, pid);
            Result gzipped = CliRun.run("heap", pid, "--dump", hers + "/live.hprof.gz", "--live", "--gz", "1");
            for (Result result : List.of(all, live, gzipped)) {
                assertEquals(0, result.exit(), result.toString());
                assertTrue(result.out().contains("written by the JVM as uid " + OtherUser.uid() + ", mode 0600"), result.out());
                assertTrue(Pattern.compile("target paused \\d+ ms \\(reaching the safepoint \\d+ ms, at it \\d+ ms; [1-9]\\d* safepoints?")
                        .matcher(result.out()).find(), result.out());
            }
            assertTrue(all.out().contains("heap dump, no GC: target paused"), all.out());
            assertTrue(live.out().contains("full GC and heap dump: target paused"), live.out());
            for (String name : List.of("all.hprof", "live.hprof", "live.hprof.gz")) {
                Path file = hers.resolve(name);
                assertEquals(OtherUser.uid(), (int) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS), name);
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)), name);
                try (InputStream in = name.endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file)) : Files.newInputStream(file)) {
                    assertArrayEquals(HPROF_HEADER, in.readNBytes(HPROF_HEADER.length), name);
                }
            }
            long allBytes = Files.size(hers.resolve("all.hprof"));
            long liveBytes = Files.size(hers.resolve("live.hprof"));
            long gzBytes = Files.size(hers.resolve("live.hprof.gz"));
            String sizes = "all " + allBytes + " B (heap used " + usedBefore + " B before, " + usedAfterAll + " B after), live " + liveBytes
                    + " B (heap used " + usedAfterLive + " B after its GC), gzipped " + gzBytes + " B";
            System.out.println(jdk + ": " + sizes);
            long garbage = HeapDumpTarget.KEPT_BYTES;
            assertTrue(usedBefore >= 2L * HeapDumpTarget.KEPT_BYTES && usedAfterAll >= usedBefore, "no GC before the dump of all: " + sizes);
            assertTrue(allBytes > 0.8 * usedBefore && allBytes < 1.3 * usedBefore + 16 * MIB, sizes);
            assertTrue(usedAfterLive < usedBefore - garbage / 2, "the live dump collected the garbage: " + sizes);
            assertTrue(liveBytes > 0.8 * usedAfterLive && liveBytes < 1.3 * usedAfterLive + 16 * MIB, sizes);
            assertTrue(liveBytes > HeapDumpTarget.KEPT_BYTES && liveBytes < allBytes - garbage / 2, sizes);
            assertTrue(gzBytes < liveBytes / 4, "zeroed arrays compress: " + sizes);
        }
    }

    /**
     * Root's JVM in a mount namespace of its own, where two file systems are mounted that the CLI's
     * namespace does not see: a dump goes into the target's own (the CLI's directory of that name
     * stays empty), one with less room than the heap uses is refused (exit 16), and so is every
     * directory another user could have chosen, a link on the way, an existing file: one line, exit 2,
     * nothing written.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void whatTheJvmWouldWriteIsCheckedAsTheTargetSeesIt(Jdks.Jdk jdk) throws Exception {
        Path dir = base.resolve("ns-" + jdk.feature());
        Path small = dir.resolve("small");
        Path big = dir.resolve("big");
        Path hers = dir.resolve("hers");
        Path open = dir.resolve("open");
        Path link = dir.resolve("link");
        for (Path made : List.of(dir, small, big, hers, open)) {
            Files.createDirectory(made);
        }
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        run("chown", OtherUser.NAME, hers.toString());
        Files.createSymbolicLink(link, big);
        List<String> wrapper = List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount -t tmpfs -o size=4m,mode=0700 tmpfs " + small + " && mount -t tmpfs -o size=256m,mode=0700 tmpfs " + big
                        + " && exec \"$@\"", "sh");
        try (TargetJvm target = TargetJvm.startWrapped(wrapper, classes, jdk, HeapDumpTarget.class, HEAP)) {
            String pid = Long.toString(target.pid());
            Result written = CliRun.run("heap", pid, "--dump", big + "/heap.hprof");
            assertEquals(0, written.exit(), written.toString());
            Path inTarget = Path.of("/proc/" + pid + "/root" + big + "/heap.hprof");
            assertTrue(Files.size(inTarget) > 2L * HeapDumpTarget.KEPT_BYTES, written.out());
            try (Stream<Path> mine = Files.list(big)) {
                assertEquals(0, mine.count(), "written in the target's file system, not in the CLI's");
            }
            long writtenAt = Files.getLastModifiedTime(inTarget).toMillis();

            Result noRoom = CliRun.run("heap", pid, "--dump", small + "/heap.hprof");
            assertEquals(16, noRoom.exit(), noRoom.toString());
            assertTrue(noRoom.err().matches("jvmti-cli: " + Pattern.quote(small.toString())
                    + ": \\d+ bytes free on its file system, less than the heap's \\d+ used bytes\n"), noRoom.err());

            Result exists = CliRun.run("heap", pid, "--dump", big + "/heap.hprof");
            assertEquals(2, exists.exit(), exists.toString());
            assertTrue(exists.err().startsWith("jvmti-cli: " + big + "/heap.hprof exists"), exists.err());
            assertEquals(writtenAt, Files.getLastModifiedTime(inTarget).toMillis(), "the file was left as it was");

            assertRefused(pid, link + "/heap.hprof", "jvmti-cli: " + link + ": link is a symbolic link (name the directory by its real path)");
            assertRefused(pid, link + "/x/heap.hprof", "jvmti-cli: " + link + "/x: link is a symbolic link (name the directory by its real path)");
            assertRefused(pid, hers + "/heap.hprof", "jvmti-cli: " + hers + ": hers belongs to uid " + OtherUser.uid()
                    + ", neither root nor the JVM's user (uid 0)");
            assertRefused(pid, open + "/heap.hprof", "jvmti-cli: " + open
                    + ": open can be written by anyone (mode 0777): name a directory only the JVM's user can write");
            assertRefused(pid, "relative/heap.hprof", "jvmti-cli: --dump takes the new file's absolute path as the target sees it"
                    + " (a container's JVM: inside it): relative/heap.hprof");
            for (Path untouched : List.of(hers, open, small)) {
                try (Stream<Path> files = Files.list(untouched)) {
                    assertEquals(0, files.count(), untouched + " holds nothing");
                }
            }
            try (Stream<Path> files = Files.list(Path.of("/proc/" + pid + "/root" + small))) {
                assertEquals(0, files.count(), "nothing written on the full file system");
            }
        }
    }

    /** Parallel, ZGC and Shenandoah on every JDK (G1 above). */
    Stream<Arguments> otherCollectors() {
        return Jdks.stream().flatMap(jdk -> Stream.of("-XX:+UseParallelGC", "-XX:+UseZGC", "-XX:+UseShenandoahGC").map(gc -> Arguments.of(jdk, gc)));
    }

    /**
     * Every collector's heap dump is a dump: of every object, the kept arrays at least (Parallel: the
     * garbage too, no GC having run; ZGC and Shenandoah walk the heap from its roots); of the live ones,
     * the kept arrays and not the garbage.
     */
    @ParameterizedTest
    @MethodSource("otherCollectors")
    void everyCollectorWritesADump(Jdks.Jdk jdk, String collector) throws Exception {
        Path dir = base.resolve("gc-" + jdk.feature() + collector.replace("-XX:+Use", "-"));
        Files.createDirectory(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        try (TargetJvm target = TargetJvm.start(jdk, HeapDumpTarget.class, List.of(collector, "-Xms512m", "-Xmx512m", "-Xmn400m"))) {
            String pid = Long.toString(target.pid());
            Result all = CliRun.run("heap", pid, "--dump", dir + "/all.hprof");
            Result live = CliRun.run("heap", pid, "--dump", dir + "/live.hprof", "--live");
            for (Result result : List.of(all, live)) {
                assertEquals(0, result.exit(), result.toString());
                assertTrue(result.out().contains("target paused"), result.out());
            }
            for (String name : List.of("all.hprof", "live.hprof")) {
                try (InputStream in = Files.newInputStream(dir.resolve(name))) {
                    assertArrayEquals(HPROF_HEADER, in.readNBytes(HPROF_HEADER.length), name);
                }
            }
            long allBytes = Files.size(dir.resolve("all.hprof"));
            long liveBytes = Files.size(dir.resolve("live.hprof"));
            String sizes = jdk + " " + collector + ": all " + allBytes + " B, live " + liveBytes + " B";
            System.out.println(sizes);
            assertTrue(allBytes > (collector.contains("Parallel") ? 2L : 1L) * HeapDumpTarget.KEPT_BYTES, sizes);
            assertTrue(liveBytes > HeapDumpTarget.KEPT_BYTES && liveBytes < HeapDumpTarget.KEPT_BYTES + 24 * MIB, sizes);
        }
    }

    private static void assertRefused(String pid, String file, String line) {
        Result refused = CliRun.run("heap", pid, "--dump", file);
        assertEquals(2, refused.exit(), refused.toString());
        assertEquals(line, refused.err().lines().findFirst().orElse(""), refused.toString());
        assertFalse(refused.out().contains("written by the JVM"), refused.toString());
    }

    /** The heap's used bytes as jcmd's GC.heap_info says. */
    private static long heapUsed(Jdks.Jdk jdk, String pid) throws Exception {
        String out = output(List.of(jdk.home().resolve("bin/jcmd").toString(), pid, "GC.heap_info"));
        Matcher used = HEAP_USED.matcher(out);
        assertTrue(used.find(), out);
        return Long.parseLong(used.group(1)) * 1024;
    }

    private static String output(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command));
        return out;
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).inheritIO().start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, String.join(" ", command));
    }
}
