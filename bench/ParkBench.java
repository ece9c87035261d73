import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A park-heavy workload for bench/park-overhead.sh, three parts at once: two threads handing a turn to
 * each other with LockSupport.park(blocker)/unpark (every hand-off is one park: the probes' worst case),
 * two more doing the same with LockSupport.park() and no blocker (a latch written by hand), and four
 * threads taking a ReentrantLock in turns around a short critical section (parks as real contention
 * makes them; with a third argument {@code virtual}, JDK 21+, those four are virtual threads, so the
 * owners whose stacks contention reads are virtual). Prints STARTED, then after the warm-up and the measuring window "OPS <hand-offs per
 * second> <lock acquisitions per second> <hand-offs without a blocker per second>" and DONE, and waits
 * to be killed.
 */
public final class ParkBench {
    static volatile int turn;
    static volatile int bareTurn;
    static final Object BLOCKER = new Object();
    static final ReentrantLock LOCK = new ReentrantLock();
    static final AtomicLong HANDOFFS = new AtomicLong();
    static final AtomicLong LOCKS = new AtomicLong();
    static final AtomicLong BARE_HANDOFFS = new AtomicLong();
    static long shared;

    static void handOff(int me, Thread[] pair) {
        while (true) {
            while (turn != me) {
                LockSupport.park(BLOCKER);
            }
            turn = 1 - me;
            HANDOFFS.incrementAndGet();
            LockSupport.unpark(pair[1 - me]);
        }
    }

    static void handOffWithoutBlocker(int me, Thread[] pair) {
        while (true) {
            while (bareTurn != me) {
                LockSupport.park();
            }
            bareTurn = 1 - me;
            BARE_HANDOFFS.incrementAndGet();
            LockSupport.unpark(pair[1 - me]);
        }
    }

    static void takeLock() {
        while (true) {
            LOCK.lock();
            try {
                for (int i = 0; i < 200; i++) {
                    shared += i;
                }
            } finally {
                LOCK.unlock();
            }
            LOCKS.incrementAndGet();
        }
    }

    /** An unstarted virtual thread (JDK 21+), by reflection: the bench compiles for Java 11. */
    static Thread virtual(String name, Runnable body) throws Exception {
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Object virtual = Thread.class.getMethod("ofVirtual").invoke(null);
        virtual = builder.getMethod("name", String.class).invoke(virtual, name);
        return (Thread) builder.getMethod("unstarted", Runnable.class).invoke(virtual, body);
    }

    public static void main(String[] args) throws Exception {
        long warmMillis = Long.parseLong(args[0]);
        long measureMillis = Long.parseLong(args[1]);
        System.out.println("STARTED " + ProcessHandle.current().pid());
        Thread[] pair = new Thread[2];
        for (int i = 0; i < 2; i++) {
            int me = i;
            pair[i] = new Thread(() -> handOff(me, pair), "hand-off-" + i);
            pair[i].setDaemon(true);
        }
        Thread[] barePair = new Thread[2];
        for (int i = 0; i < 2; i++) {
            int me = i;
            barePair[i] = new Thread(() -> handOffWithoutBlocker(me, barePair), "bare-hand-off-" + i);
            barePair[i].setDaemon(true);
        }
        for (Thread t : pair) {
            t.start();
        }
        for (Thread t : barePair) {
            t.start();
        }
        boolean virtualLockers = args.length > 2 && args[2].equals("virtual");
        for (int i = 0; i < 4; i++) {
            Thread t = virtualLockers ? virtual("locker-" + i, ParkBench::takeLock) : new Thread(ParkBench::takeLock, "locker-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(warmMillis);
        long handoffs = HANDOFFS.get();
        long locks = LOCKS.get();
        long bare = BARE_HANDOFFS.get();
        long start = System.nanoTime();
        Thread.sleep(measureMillis);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("OPS %.0f %.0f %.0f%n", (HANDOFFS.get() - handoffs) / seconds, (LOCKS.get() - locks) / seconds,
                (BARE_HANDOFFS.get() - bare) / seconds);
        System.out.println("DONE");
        Thread.sleep(Long.MAX_VALUE); // until the script kills it, after the CLI has its report
    }
}
