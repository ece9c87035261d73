/**
 * The traced method of bench/trace-overhead.sh and the thread that calls it: one worker calls
 * {@code work} (a few dozen multiply-xor rounds, nothing allocated) in a loop, and the calls per
 * CPU second of that worker say what each call costs, a probe's time included (a probe runs on the
 * calling thread). Prints STARTED; a tool attaches; the script writes a line on its standard input;
 * then the main thread makes SLOW_CALLS calls of SLOW_ROUNDS rounds each (30 ms or more: so a tool
 * told to keep calls over a threshold has something to show, proof that it ran), the worker warms
 * up again (the first retransformation in a JVM throws away all compiled code), and over the
 * measuring window it prints "CALLS <per wall second> <per CPU second of the worker> <CPU ns per
 * call>", then DONE, and waits to be killed.
 */
public final class TraceBench {
    static final int ROUNDS = 32;
    static final int SLOW_ROUNDS = 20_000_000;
    static final int SLOW_CALLS = 3;
    static final int BATCH = 1024;
    static volatile long sink;
    static volatile long calls;

    static long work(long x, int rounds) {
        for (int i = 0; i < rounds; i++) {
            x ^= x >>> 33;
            x *= 0xff51afd7ed558ccdL;
            x += i;
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        long warmMillis = Long.parseLong(args[0]);
        long measureMillis = Long.parseLong(args[1]);
        Thread worker = new Thread(() -> {
            long seed = 1;
            long done = 0;
            while (true) {
                for (int i = 0; i < BATCH; i++) {
                    seed = work(seed, ROUNDS);
                }
                sink = seed;
                done += BATCH;
                calls = done;
            }
        }, "worker");
        worker.setDaemon(true);
        worker.start();
        Thread.sleep(warmMillis);
        System.out.println("STARTED " + ProcessHandle.current().pid());
        if (new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine() == null) {
            return;
        }
        for (int i = 0; i < SLOW_CALLS; i++) {
            sink = work(i, SLOW_ROUNDS);
        }
        Thread.sleep(warmMillis);
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long before = calls;
        long cpuBefore = mx.getThreadCpuTime(worker.getId());
        long start = System.nanoTime();
        Thread.sleep(measureMillis);
        long after = calls;
        long cpuAfter = mx.getThreadCpuTime(worker.getId());
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (cpuAfter - cpuBefore) / 1e9;
        System.out.printf("CALLS %.0f %.0f %.2f%n", (after - before) / seconds, (after - before) / cpuSeconds,
                (cpuAfter - cpuBefore) / (double) (after - before));
        System.out.println("DONE");
        Thread.sleep(Long.MAX_VALUE);
    }
}
