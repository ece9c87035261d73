/**
 * A CPU-bound workload for bench/profile-overhead.sh: one thread (the machine is small and
 * shared) hashes a block of numbers through a few levels of calls, allocating nothing. Prints
 * STARTED first, so that a script can start profiling during the warm-up, then, over the
 * measuring window, "OPS <per wall second> <per CPU second of the worker>": the second is
 * steadier on a shared machine, and it still counts the profiler's signal handler, which runs
 * on the sampled thread. Prints DONE, then waits to be killed.
 */
public final class ProfileBench {
    static volatile long sink;

    static long mix(long x, int i) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        return x + i;
    }

    static long block(long seed) {
        long x = seed;
        for (int i = 0; i < 4096; i++) {
            x = mix(x, i);
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        long warmMillis = Long.parseLong(args[0]);
        long measureMillis = Long.parseLong(args[1]);
        System.out.println("STARTED " + ProcessHandle.current().pid());
        long[] count = new long[1];
        Thread worker = new Thread(() -> {
            long seed = 1;
            while (true) {
                seed = block(seed);
                sink = seed;
                count[0]++;
            }
        }, "worker");
        worker.setDaemon(true);
        worker.start();
        Thread.sleep(warmMillis);
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long before = count[0];
        long cpuBefore = mx.getThreadCpuTime(worker.getId());
        long start = System.nanoTime();
        Thread.sleep(measureMillis);
        long after = count[0];
        long cpuAfter = mx.getThreadCpuTime(worker.getId());
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (cpuAfter - cpuBefore) / 1e9;
        System.out.printf("OPS %.0f %.0f%n", (after - before) / seconds, (after - before) / cpuSeconds);
        System.out.println("DONE");
        Thread.sleep(Long.MAX_VALUE);
    }
}
