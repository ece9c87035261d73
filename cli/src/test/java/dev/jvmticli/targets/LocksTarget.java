package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Every lock situation the stacks/monitors/deadlocks tests look for, each on threads with known
 * names: deadlocks over monitors, over ReentrantLocks and over a mix of both in a ring of three;
 * one holder with three contenders; timed and untimed Object.wait; nested and recursive monitors
 * at known frames; a thread running native code (a read that never ends) inside a monitor it
 * entered further down; a thread parked on a ReentrantLock another thread owns; a thread owning a
 * ReentrantLock nobody waits for; an idle pool of IDLE_WORKERS threads awaiting work in
 * Condition.await (more than the monitor's contenders); a 1,500-frame stack.
 */
public final class LocksTarget {
    public static final int DEEP_FRAMES = 1500;
    public static final int IDLE_WORKERS = 5;

    static final Object CONTENDED = new Object();
    static final Object NEST_A = new Object();
    static final Object NEST_B = new Object();
    static final Object NATIVE_HELD = new Object();
    static volatile long sink;

    private LocksTarget() {
    }

    public static void main(String[] args) throws Exception {
        monitorDeadlock();
        reentrantDeadlock();
        mixedRing();
        contention();
        waits();
        nested();
        inNativeCode();
        parked();
        loneOwner();
        idlePool();
        Thread deep = TargetMain.start("deep", () -> recurse(DEEP_FRAMES));
        TargetMain.awaitState(deep, Thread.State.TIMED_WAITING);
        TargetMain.serve(line -> line.equals("spin") ? "spinning " + TargetMain.start("spinner", LocksTarget::spin).getId()
                : "unknown command " + line);
    }

    /** On a CPU for as long as the JVM lives: its CPU time grows as fast as the wall clock at most. */
    private static void spin() {
        while (true) {
            sink++;
        }
    }

    private static void monitorDeadlock() throws InterruptedException {
        Object left = new Object();
        Object right = new Object();
        CountDownLatch both = new CountDownLatch(2);
        Thread a = TargetMain.start("mon-dl-a", () -> monitorThenMonitor(left, right, both));
        Thread b = TargetMain.start("mon-dl-b", () -> monitorThenMonitor(right, left, both));
        TargetMain.awaitState(a, Thread.State.BLOCKED);
        TargetMain.awaitState(b, Thread.State.BLOCKED);
    }

    private static void reentrantDeadlock() throws InterruptedException {
        ReentrantLock left = new ReentrantLock();
        ReentrantLock right = new ReentrantLock();
        CountDownLatch both = new CountDownLatch(2);
        Thread a = TargetMain.start("rl-dl-a", () -> lockThenLock(left, right, both));
        Thread b = TargetMain.start("rl-dl-b", () -> lockThenLock(right, left, both));
        TargetMain.awaitState(a, Thread.State.WAITING);
        TargetMain.awaitState(b, Thread.State.WAITING);
    }

    /** ring-1 holds monitor m1 and wants lock r2; ring-2 holds r2 and wants m3; ring-3 holds m3 and wants m1. */
    private static void mixedRing() throws InterruptedException {
        Object m1 = new Object();
        ReentrantLock r2 = new ReentrantLock();
        Object m3 = new Object();
        CountDownLatch all = new CountDownLatch(3);
        Thread one = TargetMain.start("ring-1", () -> {
            synchronized (m1) {
                TargetMain.arrive(all);
                r2.lock();
            }
        });
        Thread two = TargetMain.start("ring-2", () -> {
            r2.lock();
            TargetMain.arrive(all);
            synchronized (m3) {
                sink++;
            }
        });
        Thread three = TargetMain.start("ring-3", () -> {
            synchronized (m3) {
                TargetMain.arrive(all);
                synchronized (m1) {
                    sink++;
                }
            }
        });
        TargetMain.awaitState(one, Thread.State.WAITING);
        TargetMain.awaitState(two, Thread.State.BLOCKED);
        TargetMain.awaitState(three, Thread.State.BLOCKED);
    }

    private static void contention() throws InterruptedException {
        Thread holder = TargetMain.start("holder", () -> {
            synchronized (CONTENDED) {
                sleepForever();
            }
        });
        TargetMain.awaitState(holder, Thread.State.TIMED_WAITING);
        for (int i = 1; i <= 3; i++) {
            Thread contender = TargetMain.start("contender-" + i, () -> {
                synchronized (CONTENDED) {
                    sink++;
                }
            });
            TargetMain.awaitState(contender, Thread.State.BLOCKED);
        }
    }

    private static void waits() throws InterruptedException {
        Object timed = new Object();
        Object untimed = new Object();
        Thread a = TargetMain.start("waiter-timed", () -> waitOn(timed, 3_600_000));
        Thread b = TargetMain.start("waiter-untimed", () -> waitOn(untimed, 0));
        TargetMain.awaitState(a, Thread.State.TIMED_WAITING);
        TargetMain.awaitState(b, Thread.State.WAITING);
    }

    private static void nested() throws InterruptedException {
        Thread nester = TargetMain.start("nester", LocksTarget::nestOuter);
        TargetMain.awaitState(nester, Thread.State.TIMED_WAITING);
    }

    /**
     * Frames, innermost first: ... sleep, nestInnermost, nestRecursive (A again), the method
     * reference's proxy (a hidden frame, which JVMTI shows and ThreadSnapshot leaves out), nestMiddle
     * (B), nestOuter (A).
     */
    static void nestOuter() {
        synchronized (NEST_A) {
            nestMiddle();
        }
    }

    static void nestMiddle() {
        synchronized (NEST_B) {
            Runnable recursive = LocksTarget::nestRecursive;
            recursive.run();
        }
    }

    static void nestRecursive() {
        synchronized (NEST_A) {
            nestInnermost();
        }
    }

    static void nestInnermost() {
        sleepForever();
    }

    private static void inNativeCode() throws IOException, InterruptedException {
        Pipe pipe = Pipe.open(); // never written to
        Thread reader = TargetMain.start("native-nester", () -> readUnderLock(pipe));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!inNative(reader)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("native-nester never reached its read");
            }
            Thread.sleep(5);
        }
    }

    private static boolean inNative(Thread thread) {
        StackTraceElement[] frames = thread.getStackTrace();
        return frames.length > 0 && frames[0].isNativeMethod();
    }

    /** Frames, innermost first: the pipe's read in native code, ..., readForever, readUnderLock (NATIVE_HELD). */
    static void readUnderLock(Pipe pipe) {
        synchronized (NATIVE_HELD) {
            readForever(pipe);
        }
    }

    static void readForever(Pipe pipe) {
        try {
            pipe.source().read(ByteBuffer.allocate(1));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void parked() throws InterruptedException {
        ReentrantLock lock = new ReentrantLock();
        CountDownLatch owned = new CountDownLatch(1);
        TargetMain.start("rl-owner", () -> {
            lock.lock();
            owned.countDown();
            sleepForever();
        });
        owned.await();
        Thread parked = TargetMain.start("rl-parked", lock::lock);
        TargetMain.awaitState(parked, Thread.State.WAITING);
    }

    private static void loneOwner() throws InterruptedException {
        ReentrantLock lock = new ReentrantLock();
        Thread owner = TargetMain.start("rl-lone-owner", () -> {
            lock.lock();
            sleepForever();
        });
        TargetMain.awaitState(owner, Thread.State.TIMED_WAITING);
    }

    private static void idlePool() throws InterruptedException {
        List<Thread> workers = new CopyOnWriteArrayList<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(IDLE_WORKERS, IDLE_WORKERS, 1, TimeUnit.HOURS, new LinkedBlockingQueue<>(),
                task -> {
                    Thread worker = new Thread(task, "idle-worker-" + (workers.size() + 1));
                    worker.setDaemon(true);
                    workers.add(worker);
                    return worker;
                });
        pool.prestartAllCoreThreads();
        for (Thread worker : workers) {
            TargetMain.awaitState(worker, Thread.State.WAITING);
        }
    }

    static void recurse(int depth) {
        if (depth <= 1) {
            sleepForever();
        } else {
            recurse(depth - 1);
        }
    }

    private static void monitorThenMonitor(Object first, Object second, CountDownLatch both) {
        synchronized (first) {
            TargetMain.arrive(both);
            synchronized (second) {
                sink++;
            }
        }
    }

    private static void lockThenLock(ReentrantLock first, ReentrantLock second, CountDownLatch both) {
        first.lock();
        TargetMain.arrive(both);
        second.lock();
    }

    private static void waitOn(Object monitor, long millis) {
        synchronized (monitor) {
            while (true) {
                try {
                    monitor.wait(millis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    static void sleepForever() {
        while (true) {
            try {
                Thread.sleep(3_600_000);
            } catch (InterruptedException ignored) {
                // keep sleeping
            }
        }
    }
}
