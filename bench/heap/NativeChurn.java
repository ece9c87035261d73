import java.lang.reflect.Field;
import sun.misc.Unsafe;

/**
 * A native allocation workload for `memory --native`'s overhead: one thread, each operation an
 * Unsafe.allocateMemory of 256 bytes (the JVM's malloc), written, a little arithmetic, and its free.
 * Every 100 ms it prints "wall-clock ms, operations so far, the thread's CPU ns so far".
 */
public final class NativeChurn {
    static volatile long ops;
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Field field = Unsafe.class.getDeclaredField("theUnsafe");
        field.setAccessible(true);
        Unsafe unsafe = (Unsafe) field.get(null);
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        Thread worker = new Thread(() -> {
            long x = 1;
            for (long n = 1; ; n++) {
                long block = unsafe.allocateMemory(256);
                unsafe.setMemory(block, 256, (byte) n);
                for (int i = 0; i < 20_000; i++) {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
                unsafe.freeMemory(block);
                sink = x;
                ops = n;
            }
        }, "churn");
        worker.setDaemon(true);
        worker.start();
        System.out.println("READY");
        while (true) {
            Thread.sleep(100);
            System.out.println(System.currentTimeMillis() + " " + ops + " " + threads.getThreadCpuTime(worker.getId()));
        }
    }
}
