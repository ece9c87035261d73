import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A benchmark target: THREADS threads, each DEPTH frames deep, in the states of SHAPE, then idle
 * until its standard input closes. Prints READY when every thread is in place.
 *
 * Shape "mix" (the default; by thread index): 30% sleeping, 20% in Object.wait (holding two
 * monitors further down the stack), 15% blocked entering a monitor held by a sleeper, 15% parked
 * on a ReentrantLock held by another thread, 15% parked on a latch, 5% RUNNABLE in native (reading
 * a pipe). "sleeping": all of them sleep. "blocked": all are blocked entering one of a few
 * monitors. "parked": all are parked, 4 in 5 on a latch, 1 in 5 on one of a few ReentrantLocks.
 * The holders of those monitors and locks sleep. One extra thread computes half of the time
 * (busy 2 ms, sleeps 2 ms), so that safepoints have a running thread to bring to a stop, as in a
 * real application.
 *
 * Usage: java BenchTarget THREADS DEPTH [mix|sleeping|blocked|parked]
 */
public final class BenchTarget {
    private static final int MAX_HOLDERS = 8;
    private static final Object[] CONTENDED = new Object[MAX_HOLDERS];
    private static final ReentrantLock[] LOCKS = new ReentrantLock[MAX_HOLDERS];
    private static int holders;
    private static final CountDownLatch NEVER = new CountDownLatch(1);
    private static final List<Pipe> PIPES = new ArrayList<>();
    private static volatile long sink;

    private BenchTarget() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int depth = Integer.parseInt(args[1]);
        String shape = args.length > 2 ? args[2] : "mix";
        holders = Math.max(1, Math.min(MAX_HOLDERS, threads / 10));
        CountDownLatch holdersReady = new CountDownLatch(2 * holders);
        for (int i = 0; i < holders; i++) {
            CONTENDED[i] = new Object();
            LOCKS[i] = new ReentrantLock();
            int which = i;
            start("monitor-holder-" + i, () -> descend(depth, () -> {
                synchronized (CONTENDED[which]) {
                    holdersReady.countDown();
                    sleepForever();
                }
            }));
            start("lock-holder-" + i, () -> descend(depth, () -> {
                LOCKS[which].lock();
                holdersReady.countDown();
                sleepForever();
            }));
        }
        holdersReady.await();
        int workers = Math.max(0, threads - 2 * holders - 1);
        CountDownLatch ready = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++) {
            int slot = switch (shape) {
                case "mix" -> i % 20;
                case "sleeping" -> 0;
                case "blocked" -> 10;
                case "parked" -> i % 5 == 0 ? 13 : 16;
                default -> throw new IllegalArgumentException("unknown shape " + shape);
            };
            Object own = new Object();
            Runnable leaf;
            String kind;
            if (slot < 6) {
                kind = "sleeper";
                leaf = () -> {
                    ready.countDown();
                    sleepForever();
                };
            } else if (slot < 10) {
                kind = "waiter";
                leaf = () -> waitWithLocks(own, depth, ready);
            } else if (slot < 13) {
                kind = "blocked";
                Object monitor = CONTENDED[i % holders];
                leaf = () -> {
                    ready.countDown();
                    synchronized (monitor) {
                        sink++;
                    }
                };
            } else if (slot < 16) {
                kind = "lock-waiter";
                ReentrantLock lock = LOCKS[i % holders];
                leaf = () -> {
                    ready.countDown();
                    lock.lock();
                    lock.unlock();
                };
            } else if (slot < 19) {
                kind = "parked";
                leaf = () -> {
                    ready.countDown();
                    awaitForever();
                };
            } else {
                kind = "reader";
                Pipe pipe = Pipe.open();
                PIPES.add(pipe);
                leaf = () -> {
                    ready.countDown();
                    readForever(pipe);
                };
            }
            start(kind + "-" + i, () -> descend(depth, leaf));
        }
        ready.await();
        Thread busy = new Thread(BenchTarget::busy, "busy");
        busy.setDaemon(true);
        busy.start();
        Thread.sleep(500); // the last threads reach their blocking call
        System.out.println("READY");
        System.out.flush();
        while (System.in.read() >= 0) {
            // runs until the driver closes standard input
        }
        System.exit(0);
    }

    private static void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    /** Recurses until the stack is depth frames deep, then runs leaf. */
    private static void descend(int depth, Runnable leaf) {
        if (depth <= 4) {
            leaf.run();
        } else {
            descend(depth - 1, leaf);
        }
        sink++;
    }

    private static void lockedFrame(Object outer, Object inner, Runnable body) {
        synchronized (outer) {
            synchronized (inner) {
                body.run();
            }
        }
    }

    private static void waitWithLocks(Object own, int depth, CountDownLatch ready) {
        lockedFrame(new Object(), new Object(), () -> {
            synchronized (own) {
                ready.countDown();
                while (true) {
                    try {
                        own.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
    }

    private static void sleepForever() {
        while (true) {
            try {
                Thread.sleep(1_000_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void awaitForever() {
        while (true) {
            try {
                NEVER.await();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void readForever(Pipe pipe) {
        try {
            pipe.source().read(ByteBuffer.allocate(1));
        } catch (IOException e) {
            // the pipe closed: the thread ends
        }
    }

    private static void busy() {
        long x = 1;
        while (true) {
            long end = System.nanoTime() + 2_000_000;
            while (System.nanoTime() < end) {
                for (int i = 0; i < 1000; i++) {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
            }
            sink = x;
            LockSupport.parkNanos(2_000_000);
        }
    }
}
