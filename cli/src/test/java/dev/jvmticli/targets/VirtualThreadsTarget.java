package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Virtual threads in known situations (JDK 21+; built through reflection, since the tests compile
 * for Java 17): SLEEPERS sleeping at one place (NAMED_SLEEPERS named vt-sleep-N, the rest unnamed),
 * PARKED parked without a blocker in an executor's thread container (vt-exec-N), one parked on a
 * ReentrantLock a platform thread owns, one blocked on a monitor a platform thread holds, one
 * holding a monitor while it sleeps, one pinned in a class initializer, and a deadlock of a virtual
 * thread with a platform thread.
 */
public final class VirtualThreadsTarget {
    public static final int SLEEPERS = 320;
    public static final int NAMED_SLEEPERS = 20;
    public static final int PARKED = 3;

    static final Object HELD = new Object();
    static final Object VT_HELD = new Object();

    private VirtualThreadsTarget() {
    }

    public static void main(String[] args) throws Exception {
        Runnable sleeper = LocksTarget::sleepForever;
        Thread last = null;
        for (int i = 0; i < SLEEPERS; i++) {
            last = startVirtual(i < NAMED_SLEEPERS ? "vt-sleep-" + i : "", sleeper);
        }
        TargetMain.awaitState(last, Thread.State.TIMED_WAITING);

        ExecutorService executor = executor("vt-exec-");
        CountDownLatch parking = new CountDownLatch(PARKED);
        for (int i = 0; i < PARKED; i++) {
            executor.submit(() -> {
                parking.countDown();
                while (true) {
                    LockSupport.park();
                }
            });
        }
        parking.await();

        ReentrantLock lock = new ReentrantLock();
        CountDownLatch owned = new CountDownLatch(1);
        TargetMain.start("p-rl-owner", () -> {
            lock.lock();
            owned.countDown();
            LocksTarget.sleepForever();
        });
        owned.await();
        TargetMain.awaitState(startVirtual("vt-rl-parked", lock::lock), Thread.State.WAITING);

        Thread holder = TargetMain.start("p-mon-holder", () -> {
            synchronized (HELD) {
                LocksTarget.sleepForever();
            }
        });
        TargetMain.awaitState(holder, Thread.State.TIMED_WAITING);
        TargetMain.awaitState(startVirtual("vt-blocked", () -> {
            synchronized (HELD) {
                LocksTarget.sink++;
            }
        }), Thread.State.BLOCKED);

        TargetMain.awaitState(startVirtual("vt-mon-holder", () -> {
            synchronized (VT_HELD) {
                LocksTarget.sleepForever();
            }
        }), Thread.State.TIMED_WAITING);

        TargetMain.awaitState(startVirtual("vt-pinned", () -> LocksTarget.sink += PinsInInitializer.VALUE), Thread.State.TIMED_WAITING);

        deadlock();
        TargetMain.serve();
    }

    /** vt-dl holds a then wants b; p-dl holds b then wants a. */
    private static void deadlock() throws Exception {
        Object a = new Object();
        Object b = new Object();
        CountDownLatch both = new CountDownLatch(2);
        Thread virtual = startVirtual("vt-dl", () -> {
            synchronized (a) {
                TargetMain.arrive(both);
                synchronized (b) {
                    LocksTarget.sink++;
                }
            }
        });
        Thread platform = TargetMain.start("p-dl", () -> {
            synchronized (b) {
                TargetMain.arrive(both);
                synchronized (a) {
                    LocksTarget.sink++;
                }
            }
        });
        TargetMain.awaitState(virtual, Thread.State.BLOCKED);
        TargetMain.awaitState(platform, Thread.State.BLOCKED);
    }

    /** A class whose initializer sleeps: a virtual thread cannot unmount in it, so it pins its carrier. */
    static final class PinsInInitializer {
        static final int VALUE;

        static {
            LocksTarget.sleepForever();
            VALUE = 1;
        }

        private PinsInInitializer() {
        }
    }

    /** Thread.ofVirtual().name(name).start(body), through reflection. */
    static Thread startVirtual(String name, Runnable body) throws Exception {
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Object virtual = Thread.class.getMethod("ofVirtual").invoke(null);
        virtual = builder.getMethod("name", String.class).invoke(virtual, name);
        return (Thread) builder.getMethod("start", Runnable.class).invoke(virtual, body);
    }

    /** Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(prefix, 0).factory()), through reflection. */
    static ExecutorService executor(String prefix) throws Exception {
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Object virtual = Thread.class.getMethod("ofVirtual").invoke(null);
        virtual = builder.getMethod("name", String.class, long.class).invoke(virtual, prefix, 0L);
        ThreadFactory factory = (ThreadFactory) builder.getMethod("factory").invoke(virtual);
        Method create = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
        return (ExecutorService) create.invoke(null, factory);
    }
}
