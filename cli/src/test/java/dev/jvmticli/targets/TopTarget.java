package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.LockSupport;

/**
 * What `threads --top` tells apart: "user-burner" spends its CPU in user mode, "system-burner" in
 * the kernel (64 KiB reads of /dev/zero, which the kernel fills), "allocator" allocates
 * {@link #ARRAY_BYTES}-byte arrays at {@link #ARRAYS_PER_SECOND} and stamps each one's
 * System.nanoTime (the clock of the agent's stamps), and "collector" asks for a GC every 300 ms.
 * {@code allocations FROM TO} answers how many arrays were certainly allocated between the two
 * nanoTimes and how many may have been: "certain possible".
 */
public final class TopTarget {
    public static final int ARRAY_BYTES = 8192;
    static final int ARRAYS_PER_SECOND = 2000;
    private static final int STAMPS = 1 << 20;
    /** stamps[k]: nanoTime right after array k was allocated; the array was allocated after stamps[k - 1]. */
    private static final long[] STAMPS_TAKEN = new long[STAMPS];
    private static volatile int allocated;
    static volatile Object sink;
    static volatile long spin;

    private TopTarget() {
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("user-burner", () -> {
            long x = 0;
            while (true) {
                x += x * 31 + 7;
                spin = x;
            }
        });
        TargetMain.start("system-burner", () -> {
            ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
            try (FileChannel zero = FileChannel.open(Path.of("/dev/zero"), StandardOpenOption.READ)) {
                while (true) {
                    buffer.clear();
                    zero.read(buffer, 0);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        TargetMain.start("allocator", TopTarget::allocate);
        TargetMain.start("collector", () -> {
            while (true) {
                System.gc();
                LockSupport.parkNanos(300_000_000L);
            }
        });
        TargetMain.serve(line -> {
            String[] words = line.split(" ");
            return words[0].equals("allocations") && words.length == 3 ? allocations(Long.parseLong(words[1]), Long.parseLong(words[2]))
                    : "unknown command " + line;
        });
    }

    /** Paced: array k is due k / ARRAYS_PER_SECOND seconds after the first; ahead of that, it parks. */
    private static void allocate() {
        long started = System.nanoTime();
        for (int k = 0; k < STAMPS; k++) {
            long due = started + (long) k * 1_000_000_000L / ARRAYS_PER_SECOND;
            long early = due - System.nanoTime();
            if (early > 0) {
                LockSupport.parkNanos(early);
            }
            sink = new byte[ARRAY_BYTES];
            STAMPS_TAKEN[k] = System.nanoTime();
            allocated = k + 1;
        }
    }

    private static String allocations(long from, long to) {
        int count = allocated;
        int certain = 0;
        int possible = 0;
        for (int k = 1; k < count; k++) {
            long after = STAMPS_TAKEN[k - 1];
            long by = STAMPS_TAKEN[k];
            if (after >= from && by <= to) {
                certain++;
            }
            if (by >= from && after <= to) {
                possible++;
            }
        }
        return certain + " " + possible;
    }
}
