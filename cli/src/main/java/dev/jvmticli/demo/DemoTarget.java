package dev.jvmticli.demo;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A small JVM whose threads sit in known states: one busy, one sleeping, one in Object.wait,
 * two blocked on a monitor another thread holds, one parked on a ReentrantLock another thread
 * owns, two in a monitor deadlock, and one placing orders (a method that takes 2 ms, every tenth
 * call 20 ms, and fails every 25th call, for `trace`). It prints {@code READY <pid>} once they are in place and
 * exits when its standard input closes (or after an hour, whichever comes first).
 */
public final class DemoTarget {
    private static final Object WAIT_LOCK = new Object();
    private static final Object CONTENDED = new Object();
    private static final Object LEFT = new Object();
    private static final Object RIGHT = new Object();
    private static final ReentrantLock REENTRANT = new ReentrantLock();
    private static volatile long sink;

    private DemoTarget() {
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch holdersIn = new CountDownLatch(3);
        CountDownLatch deadlockHalves = new CountDownLatch(2);
        start("demo-busy", DemoTarget::spin);
        start("demo-sleeper", () -> sleepForever());
        start("demo-orders", DemoTarget::takeOrders);
        start("demo-waiter", () -> {
            synchronized (WAIT_LOCK) {
                while (true) {
                    try {
                        WAIT_LOCK.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
        start("demo-monitor-holder", () -> {
            synchronized (CONTENDED) {
                holdersIn.countDown();
                sleepForever();
            }
        });
        start("demo-lock-owner", () -> {
            REENTRANT.lock();
            holdersIn.countDown();
            sleepForever();
        });
        start("demo-deadlock-left", () -> lockBoth(LEFT, RIGHT, deadlockHalves));
        start("demo-deadlock-right", () -> lockBoth(RIGHT, LEFT, deadlockHalves));
        holdersIn.countDown();
        holdersIn.await();
        for (int i = 1; i <= 2; i++) {
            start("demo-blocked-" + i, () -> {
                synchronized (CONTENDED) {
                    sink++;
                }
            });
        }
        start("demo-parked", () -> {
            REENTRANT.lock();
            REENTRANT.unlock();
        });
        waitUntilSettled();
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread exitOnEof = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // wait for the parent to go away
                }
            } catch (IOException ignored) {
                // the parent is gone either way
            }
            Runtime.getRuntime().halt(0);
        }, "demo-stdin-watch");
        exitOnEof.setDaemon(true);
        exitOnEof.start();
        Thread.sleep(TimeUnit.HOURS.toMillis(1));
        Runtime.getRuntime().halt(0);
    }

    private static void lockBoth(Object first, Object second, CountDownLatch halves) {
        synchronized (first) {
            halves.countDown();
            try {
                halves.await();
            } catch (InterruptedException e) {
                return;
            }
            synchronized (second) {
                sink++;
            }
        }
    }

    /** Waits until every demo thread shows the state it was built for. */
    private static void waitUntilSettled() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            int settled = 0;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                Thread.State s = t.getState();
                String n = t.getName();
                if ((n.startsWith("demo-blocked-") || n.startsWith("demo-deadlock-")) && s == Thread.State.BLOCKED
                        || n.equals("demo-parked") && s == Thread.State.WAITING
                        || n.equals("demo-waiter") && s == Thread.State.WAITING) {
                    settled++;
                }
            }
            if (settled == 6) {
                return;
            }
            Thread.sleep(10);
        }
    }

    private static void spin() {
        long x = 0;
        while (true) {
            x += System.nanoTime() % 7;
            if ((x & 0xFFFFF) == 0) {
                sink = x;
            }
        }
    }

    private static void takeOrders() {
        for (int order = 1;; order++) {
            try {
                placeOrder(order);
            } catch (IllegalStateException | InterruptedException refused) {
                // counted by the caller's caller in a real shop; here the demo just goes on
            }
        }
    }

    static void placeOrder(int order) throws InterruptedException {
        Thread.sleep(order % 10 == 0 ? 20 : 2);
        if (order % 25 == 0) {
            throw new IllegalStateException("order " + order + " refused");
        }
    }

    private static void sleepForever() {
        while (true) {
            try {
                Thread.sleep(TimeUnit.HOURS.toMillis(1));
            } catch (InterruptedException e) {
                LockSupport.parkNanos(1);
            }
        }
    }

    private static void start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(false);
        thread.start();
    }
}
