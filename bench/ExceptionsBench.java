import java.lang.management.ManagementFactory;

/**
 * An exception-heavy workload for bench/exceptions-overhead.sh: one thread creates, throws and
 * catches an IllegalStateException with a message, 8 frames below its loop (three classes' worth of
 * exceptions, as a service that uses them for control flow). Prints STARTED, then after the warm-up
 * the exceptions made over the measuring window as "OPS <per wall second> <per CPU second of the
 * worker>" (the second is steadier on a shared machine, and still counts the probe, which runs on
 * the worker), then DONE, and waits to be killed.
 */
public final class ExceptionsBench {
    static volatile long made;

    static void fail(int depth, int seed) {
        if (depth > 0) {
            fail(depth - 1, seed);
            return;
        }
        switch (seed % 3) {
            case 0 -> throw new IllegalStateException("state " + seed);
            case 1 -> throw new IllegalArgumentException("argument " + seed);
            default -> throw new UnsupportedOperationException("operation " + seed);
        }
    }

    public static void main(String[] args) throws Exception {
        long warmMillis = Long.parseLong(args[0]);
        long measureMillis = Long.parseLong(args[1]);
        System.out.println("STARTED " + ProcessHandle.current().pid());
        Thread worker = new Thread(() -> {
            for (int seed = 0;; seed++) {
                try {
                    fail(8, seed);
                } catch (RuntimeException e) {
                    made++;
                }
            }
        }, "worker");
        worker.setDaemon(true);
        worker.start();
        Thread.sleep(warmMillis);
        var mx = ManagementFactory.getThreadMXBean();
        long before = made;
        long cpuBefore = mx.getThreadCpuTime(worker.getId());
        long start = System.nanoTime();
        Thread.sleep(measureMillis);
        long after = made;
        long cpuAfter = mx.getThreadCpuTime(worker.getId());
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (cpuAfter - cpuBefore) / 1e9;
        System.out.printf("OPS %.0f %.0f%n", (after - before) / seconds, (after - before) / cpuSeconds);
        System.out.println("DONE");
        Thread.sleep(Long.MAX_VALUE); // the script ends it, once the session it measured has reported
    }
}
