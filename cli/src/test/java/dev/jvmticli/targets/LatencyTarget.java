package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Scanner;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A target that knows its own latencies: {@code run N} makes N calls of {@link Orders#place} from
 * {@link #checkout}, each sleeping a time drawn from a known distribution (1 ms 85%, 20 ms 12%,
 * 100 ms 3%; a fixed seed: of the 400 calls after the first 5, 348, 46 and 6, so that each
 * percentile checked falls inside a group, not at its edge where a loaded machine's late wake-ups
 * decide it), every 50th call throwing instead of returning. Each call times itself with
 * System.nanoTime from its first statement to its finally block, inside trace's probes, so that
 * time its thread spends preempted outside the method is in neither record, and notes the time
 * without a lock or an allocation. {@code record} answers the exact percentiles of every call since the
 * last {@code reset}, by rank ceil(p * n): {@code calls=N errors=E p50=.. p90=.. p99=.. p999=.. max=..}
 * (nanoseconds). {@code vrun N T} makes the same N calls from T virtual threads at once (JDK 21+),
 * from {@link #checkoutVirtually}. {@code pay N} makes N calls of {@link Payments#pay} (whose callees
 * have known latencies and errors), {@code payments} answers pay's own record of them; {@code scan N}
 * makes N calls of Scanner.hasNextInt, each catching a NumberFormatException of Integer.parseInt. Written in
 * Java 11, the oldest JDK targets run on.
 */
public final class LatencyTarget {
    private static final Random DRAW = new Random(34);
    private static final long[] RECORD = new long[1 << 16];
    private static final AtomicInteger RECORDED = new AtomicInteger();
    private static final AtomicInteger ERRORS = new AtomicInteger();
    private static final Random PAY_DRAW = new Random(35);
    private static final List<Long> CHARGES = new ArrayList<>();
    private static final List<Long> RESERVES = new ArrayList<>();
    private static int reserveErrors;
    private static int calls;

    private LatencyTarget() {
    }

    /** The traced class: its one method sleeps, or throws. */
    public static final class Orders {
        private Orders() {
        }

        static void place(long millis, boolean fail) throws InterruptedException {
            long start = System.nanoTime();
            try {
                Thread.sleep(millis);
                if (fail) {
                    throw new IllegalStateException("order refused");
                }
            } finally {
                note(System.nanoTime() - start, fail);
            }
        }
    }

    /**
     * The method traced with its callees: Bank.charge sleeps the time drawn (2 ms 80%, 30 ms 20%),
     * Stock.reserve 5 ms and throws every 10th call (pay catches it), Audit.check throws every 25th
     * call (out of pay). pay times charge and reserve itself, with System.nanoTime around each.
     */
    public static final class Payments {
        private Payments() {
        }

        static void pay(long chargeMillis, boolean refused, boolean audited) throws InterruptedException {
            long t0 = System.nanoTime();
            Bank.charge(chargeMillis);
            long t1 = System.nanoTime();
            boolean reserveThrew = false;
            try {
                Stock.reserve(refused);
            } catch (IllegalStateException e) {
                reserveThrew = true;
            }
            long t2 = System.nanoTime();
            notePayment(t1 - t0, t2 - t1, reserveThrew);
            Audit.check(audited);
        }
    }

    static final class Bank {
        private Bank() {
        }

        static void charge(long millis) throws InterruptedException {
            Thread.sleep(millis);
        }
    }

    static final class Stock {
        private Stock() {
        }

        static void reserve(boolean refused) throws InterruptedException {
            Thread.sleep(5);
            if (refused) {
                throw new IllegalStateException("out of stock");
            }
        }
    }

    static final class Audit {
        private Audit() {
        }

        static void check(boolean fails) {
            if (fails) {
                throw new IllegalStateException("audit failed");
            }
        }
    }

    public static void main(String[] args) throws Exception {
        TargetMain.serve(line -> {
            if (line.startsWith("run ")) {
                return "ran " + checkout(Integer.parseInt(line.substring(4)));
            }
            if (line.startsWith("vrun ")) {
                String[] nt = line.substring(5).split(" ");
                return "ran " + checkoutVirtually(Integer.parseInt(nt[0]), Integer.parseInt(nt[1]));
            }
            if (line.startsWith("pay ")) {
                return "paid " + payments(Integer.parseInt(line.substring(4)));
            }
            if (line.startsWith("scan ")) {
                return "scanned " + scans(Integer.parseInt(line.substring(5)));
            }
            if (line.equals("payments")) {
                return paymentsRecord();
            }
            if (line.equals("reset")) {
                reset();
                return "reset";
            }
            if (line.equals("record")) {
                return record();
            }
            return "unknown command " + line;
        });
    }

    private static synchronized void reset() {
        RECORDED.set(0);
        ERRORS.set(0);
        CHARGES.clear();
        RESERVES.clear();
        reserveErrors = 0;
        calls = 0;
    }

    private static int checkout(int n) {
        for (int i = 0; i < n; i++) {
            double u = DRAW.nextDouble();
            long millis = u < 0.85 ? 1 : u < 0.97 ? 20 : 100;
            boolean fail = ++calls % 50 == 0;
            try {
                Orders.place(millis, fail);
            } catch (IllegalStateException | InterruptedException e) {
                // counted by place
            }
        }
        return n;
    }

    /**
     * The same draws as checkout's, the calls made by {@code threads} virtual threads at once (JDK
     * 21+, through reflection), each its share in turn; a sleeping virtual thread leaves its carrier.
     */
    private static int checkoutVirtually(int n, int threads) {
        long[] millis = new long[n];
        boolean[] fail = new boolean[n];
        for (int i = 0; i < n; i++) {
            double u = DRAW.nextDouble();
            millis[i] = u < 0.85 ? 1 : u < 0.97 ? 20 : 100;
            fail[i] = ++calls % 50 == 0;
        }
        try {
            ExecutorService executor = VirtualThreadsTarget.executor("checkout-");
            for (int t = 0; t < threads; t++) {
                int first = t;
                executor.execute(() -> {
                    for (int i = first; i < n; i += threads) {
                        try {
                            Orders.place(millis[i], fail[i]);
                        } catch (IllegalStateException | InterruptedException e) {
                            // counted by place
                        }
                    }
                });
            }
            executor.shutdown();
            if (!executor.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the virtual threads did not end");
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return n;
    }

    private static int payments(int n) {
        int failed = 0;
        for (int i = 1; i <= n; i++) {
            long millis = PAY_DRAW.nextDouble() < 0.8 ? 2 : 30;
            try {
                Payments.pay(millis, i % 10 == 0, i % 25 == 0);
            } catch (IllegalStateException | InterruptedException e) {
                failed++;
            }
        }
        return n - failed;
    }

    /**
     * n calls of a JDK method that catches a callee's exception: Scanner.hasNextInt finds an integer
     * token that Integer.parseInt refuses (too large), catches its NumberFormatException and answers
     * false; how many answered false.
     */
    private static int scans(int n) {
        int refused = 0;
        for (int i = 0; i < n; i++) {
            if (!new Scanner("99999999999").hasNextInt()) {
                refused++;
            }
        }
        return refused;
    }

    private static synchronized void notePayment(long chargeNanos, long reserveNanos, boolean reserveThrew) {
        CHARGES.add(chargeNanos);
        RESERVES.add(reserveNanos);
        if (reserveThrew) {
            reserveErrors++;
        }
    }

    /** charge and reserve: {@code NAME_p50=.. NAME_p90=.. NAME_p99=.. NAME_max=..} (nanoseconds, by rank ceil(p * n)), and reserve's errors. */
    private static synchronized String paymentsRecord() {
        return "calls=" + CHARGES.size() + " reserve_errors=" + reserveErrors + percentiles("charge", CHARGES) + percentiles("reserve", RESERVES);
    }

    private static String percentiles(String name, List<Long> record) {
        long[] sorted = record.stream().mapToLong(Long::longValue).sorted().toArray();
        StringBuilder answer = new StringBuilder();
        double[] ps = {0.5, 0.9, 0.99};
        String[] names = {"p50", "p90", "p99"};
        for (int i = 0; i < ps.length; i++) {
            int rank = Math.max(1, (int) Math.ceil(ps[i] * sorted.length));
            answer.append(' ').append(name).append('_').append(names[i]).append('=').append(sorted.length == 0 ? 0 : sorted[rank - 1]);
        }
        return answer.append(' ').append(name).append("_max=").append(sorted.length == 0 ? 0 : sorted[sorted.length - 1]).toString();
    }

    private static void note(long nanos, boolean threw) {
        RECORD[RECORDED.getAndIncrement()] = nanos;
        if (threw) {
            ERRORS.incrementAndGet();
        }
    }

    private static synchronized String record() {
        long[] sorted = Arrays.copyOf(RECORD, RECORDED.get());
        Arrays.sort(sorted);
        StringBuilder answer = new StringBuilder("calls=" + sorted.length + " errors=" + ERRORS.get());
        double[] ps = {0.5, 0.9, 0.99, 0.999};
        String[] names = {"p50", "p90", "p99", "p999"};
        for (int i = 0; i < ps.length; i++) {
            int rank = Math.max(1, (int) Math.ceil(ps[i] * sorted.length));
            answer.append(' ').append(names[i]).append('=').append(sorted.length == 0 ? 0 : sorted[rank - 1]);
        }
        answer.append(" max=").append(sorted.length == 0 ? 0 : sorted[sorted.length - 1]);
        return answer.toString() + " all=" + Arrays.toString(sorted).replace(" ", "");
    }
}
