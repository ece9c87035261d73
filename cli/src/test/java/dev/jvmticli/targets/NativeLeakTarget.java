package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import sun.misc.Unsafe;

/**
 * Native memory leaked from known sites, on command: {@code leak N} makes N rounds, 5 ms apart, each
 * keeping a direct ByteBuffer of {@link #DIRECT_BYTES} ({@link #leakDirect}), an Unsafe.allocateMemory
 * block of {@link #UNSAFE_BYTES} ({@link #leakUnsafe}) and a block of {@link #NATIVE_BYTES} its JNI
 * library mallocs ({@link #leakNative}), and freeing at once a block of {@link #CHURN_BYTES}
 * ({@link #churn}); it answers {@code rounds N}, N the rounds it made in all. {@code arena N} has its library malloc N blocks of
 * {@link #ARENA_BLOCK_BYTES}, each written (so resident), from its serving thread, a Java thread, so from one of glibc's arenas
 * that are not the main one; it answers {@code arena N}. The library's path is the first argument.
 */
public final class NativeLeakTarget {
    public static final int DIRECT_BYTES = 10_000;
    public static final int UNSAFE_BYTES = 7_000;
    public static final int NATIVE_BYTES = 3_000;
    public static final int CHURN_BYTES = 5_000;
    /** Below malloc's mmap threshold (128 KiB): from an arena. */
    public static final int ARENA_BLOCK_BYTES = 16_000;
    static final List<ByteBuffer> DIRECT = new ArrayList<>();
    static final List<Long> BLOCKS = new ArrayList<>();
    static final Unsafe UNSAFE = unsafe();
    static int rounds;

    private NativeLeakTarget() {
    }

    static native long nativeMalloc(int size);

    static void leakDirect() {
        DIRECT.add(ByteBuffer.allocateDirect(DIRECT_BYTES));
    }

    static void leakUnsafe() {
        BLOCKS.add(UNSAFE.allocateMemory(UNSAFE_BYTES));
    }

    static void leakNative() {
        BLOCKS.add(nativeMalloc(NATIVE_BYTES));
    }

    static void churn() {
        UNSAFE.freeMemory(UNSAFE.allocateMemory(CHURN_BYTES));
    }

    static String leak(int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            leakDirect();
            leakUnsafe();
            leakNative();
            churn();
            rounds++;
            Thread.sleep(5);
        }
        return "rounds " + rounds;
    }

    private static Unsafe unsafe() {
        try {
            Field field = Unsafe.class.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return (Unsafe) field.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        System.load(args[0]);
        TargetMain.serve(line -> {
            try {
                if (line.startsWith("arena ")) {
                    int blocks = Integer.parseInt(line.substring(6));
                    for (int i = 0; i < blocks; i++) {
                        BLOCKS.add(nativeMalloc(ARENA_BLOCK_BYTES));
                    }
                    return "arena " + blocks;
                }
                return line.startsWith("leak ") ? leak(Integer.parseInt(line.substring(5))) : "unknown command " + line;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        });
    }
}
