import java.util.ArrayList;
import java.util.List;

/**
 * An allocation-heavy workload for bench/alloc-overhead.sh: one thread (the machine is small and
 * shared) builds short-lived lists of
 * small objects and strings. Prints WARM when warmed up, then the operations per second measured
 * over the measuring window, as "OPS <per wall second> <per CPU second of the worker>": the second
 * is steadier on a shared machine, and it still counts the sampling callbacks, which run on the
 * allocating thread. Prints STARTED first, so that a script can attach and
 * start sampling during the warm-up.
 */
public final class AllocBench {
    static volatile Object sink;

    static Object work(int seed) {
        List<Object> list = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            list.add(new int[4 + (seed + i) % 16]);
            list.add(Integer.toString(seed * 31 + i));
        }
        return list;
    }

    public static void main(String[] args) throws Exception {
        long warmMillis = Long.parseLong(args[0]);
        long measureMillis = Long.parseLong(args[1]);
        int threads = 1;
        System.out.println("STARTED " + ProcessHandle.current().pid());
        long[] counts = new long[threads * 16];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int slot = t * 16;
            Thread worker = new Thread(() -> {
                int seed = 0;
                while (true) {
                    sink = work(seed++);
                    counts[slot]++;
                }
            });
            worker.setDaemon(true);
            worker.start();
            workers[t] = worker;
        }
        Thread.sleep(warmMillis);
        long before = 0;
        for (int t = 0; t < threads; t++) before += counts[t * 16];
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuBefore = 0;
        for (Thread w : workers) cpuBefore += mx.getThreadCpuTime(w.getId());
        long start = System.nanoTime();
        Thread.sleep(measureMillis);
        long after = 0;
        for (int t = 0; t < threads; t++) after += counts[t * 16];
        long cpuAfter = 0;
        for (Thread w : workers) cpuAfter += mx.getThreadCpuTime(w.getId());
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (cpuAfter - cpuBefore) / 1e9;
        System.out.printf("OPS %.0f %.0f%n", (after - before) / seconds, (after - before) / cpuSeconds);
        System.out.println("DONE");
        Thread.sleep(Long.MAX_VALUE); // until the script has its report and kills us

    }
}
