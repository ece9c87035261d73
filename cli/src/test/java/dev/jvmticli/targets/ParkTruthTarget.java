package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits whose truth the target knows, each timed by the thread that waits (System.nanoTime before and
 * after, the clock the agent's probes use):
 * <ul>
 *   <li>{@link OwnedLock}: a ReentrantLock that {@code lock-owner} holds HOLD_MILLIS at a time, in
 *       {@link #holdOwned} and there only (then lets go GAP_MILLIS), while {@code lock-waiter-N} (LOCK_WAITERS of them) each take it and let it go at once;</li>
 *   <li>a pool of POOL_SIZE connections (an ArrayBlockingQueue of them, as a HikariCP-shaped pool) that
 *       BORROWERS threads ({@code borrower-N}) borrow in {@link ConnectionPool#borrow} under their request
 *       code, holding one USE_MILLIS: waits for another thread;</li>
 *   <li>a fixed ThreadPoolExecutor of POOL_SIZE {@code worker-N} given a task every TASK_EVERY_MILLIS: its
 *       workers wait for work in getTask, an idle wait;</li>
 *   <li>a Semaphore of PERMITS permits that SEMAPHORE_THREADS {@code permit-N} each hold PERMIT_MILLIS;</li>
 *   <li>a {@link HandMadeLatch}, which parks with {@code LockSupport.park()} and no blocker: {@code latch-waiter}
 *       awaits one after another, and {@code latch-opener} opens the one awaited every LATCH_MILLIS;</li>
 *   <li>with the argument {@code virtual} (JDK 21+): another {@link OwnedLock} held by the virtual thread
 *       {@code v-owner}, taken by VIRTUAL_WAITERS virtual threads {@code v-waiter-N}; and a virtual thread
 *       {@code v-pinned} that every PIN_EVERY_MILLIS initializes a fresh copy of {@link PinsItsCarrier}, whose
 *       static initializer parks PIN_MILLIS: a park a virtual thread cannot unmount from on any JDK.</li>
 * </ul>
 * Answers {@code write PATH}: every wait recorded so far, a line each: what (lock, vlock, borrow, permit,
 * pinned, latch: each park of the latch), thread name, nanoTime before, nanoTime after, the owner's name at the start (or -);
 * and {@code now}: its System.nanoTime, to cut the record to a span of its own.
 */
public final class ParkTruthTarget {
    public static final int HOLD_MILLIS = 30;
    public static final int GAP_MILLIS = 5;
    public static final int LOCK_WAITERS = 3;
    public static final int POOL_SIZE = 4;
    public static final int BORROWERS = 50;
    public static final int USE_MILLIS = 10;
    public static final int TASK_EVERY_MILLIS = 100;
    public static final int PERMITS = 2;
    public static final int SEMAPHORE_THREADS = 4;
    public static final int PERMIT_MILLIS = 15;
    public static final int VIRTUAL_WAITERS = 6;
    public static final int PIN_MILLIS = 40;
    public static final int PIN_EVERY_MILLIS = 200;
    public static final int LATCH_MILLIS = 20;

    /**
     * A fair ReentrantLock that tells its owner, as its waiters record it. Fair, so each waiter's lock()
     * is one park: with barging, a waiter woken by the unlock can lose the lock to the owner coming back
     * and park again, and the target's one wait would be two of the tool's parks.
     */
    public static final class OwnedLock extends ReentrantLock {
        OwnedLock() {
            super(true);
        }

        String ownerName() {
            Thread owner = getOwner();
            return owner == null ? "-" : owner.getName();
        }
    }

    /** Connections in a bounded queue: borrow takes one (waiting while all are lent), give returns it. */
    public static final class ConnectionPool {
        final BlockingQueue<Object> idle = new ArrayBlockingQueue<>(POOL_SIZE);

        ConnectionPool() {
            for (int i = 0; i < POOL_SIZE; i++) {
                idle.add(new Object());
            }
        }

        Object borrow() throws InterruptedException {
            long before = System.nanoTime();
            Object connection = idle.take();
            record("borrow", before, "-");
            return connection;
        }

        void give(Object connection) {
            idle.add(connection);
        }
    }

    /**
     * A latch as code written without java.util.concurrent's synchronizers makes one: await parks with
     * LockSupport.park(), no blocker, until open, recording each park (one can return at once, when open
     * unparked the thread before it parked, or for no reason).
     */
    public static final class HandMadeLatch {
        private volatile boolean open;
        private volatile Thread waiter;

        void await() {
            waiter = Thread.currentThread();
            while (!open) {
                long before = System.nanoTime();
                LockSupport.park();
                record("latch", before, "-");
            }
        }

        void open() {
            open = true;
            LockSupport.unpark(waiter);
        }
    }

    /** Parks in its static initializer: a virtual thread initializing it is pinned to its carrier. */
    public static final class PinsItsCarrier {
        static {
            long before = System.nanoTime();
            long deadline = before + TimeUnit.MILLISECONDS.toNanos(PIN_MILLIS);
            for (long left = deadline - before; left > 0; left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(PinsItsCarrier.class, left); // may return at once: a sleep before can leave a permit
            }
            record("pinned", before, "-");
        }
    }

    static final Queue<String> WAITS = new ConcurrentLinkedQueue<>();
    static final OwnedLock LOCK = new OwnedLock();
    static final OwnedLock VIRTUAL_LOCK = new OwnedLock();
    static final ConnectionPool POOL = new ConnectionPool();
    static final Semaphore PERMITS_LEFT = new Semaphore(PERMITS);
    static volatile HandMadeLatch latch = new HandMadeLatch(); // the one latch-waiter awaits now

    private ParkTruthTarget() {
    }

    public static void record(String what, long before, String owner) {
        WAITS.add(what + "\t" + Thread.currentThread().getName() + "\t" + before + "\t" + System.nanoTime() + "\t" + owner);
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Where an owner holds its OwnedLock, and nowhere else: the stack contention reads of the owner is here. */
    static void holdOwned() {
        pause(HOLD_MILLIS);
    }

    static void own(OwnedLock lock) {
        while (true) {
            lock.lock();
            try {
                holdOwned();
            } finally {
                lock.unlock();
            }
            pause(GAP_MILLIS);
        }
    }

    static void waitFor(OwnedLock lock, String what) {
        while (true) {
            long before = System.nanoTime();
            String owner = lock.ownerName();
            lock.lock();
            record(what, before, owner);
            lock.unlock();
            pause(GAP_MILLIS);
        }
    }

    static void handleRequests() {
        while (true) {
            try {
                serveOne();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static void serveOne() throws InterruptedException {
        Object connection = POOL.borrow();
        try {
            pause(USE_MILLIS);
        } finally {
            POOL.give(connection);
        }
    }

    static void holdPermits() {
        while (true) {
            long before = System.nanoTime();
            PERMITS_LEFT.acquireUninterruptibly();
            record("permit", before, "-");
            pause(PERMIT_MILLIS);
            PERMITS_LEFT.release();
        }
    }

    static void awaitLatches() {
        while (true) {
            HandMadeLatch next = new HandMadeLatch();
            latch = next;
            next.await();
        }
    }

    static void openLatches() {
        while (true) {
            pause(LATCH_MILLIS);
            latch.open();
        }
    }

    /** Initializes a fresh copy of PinsItsCarrier, defined by a class loader of its own. */
    static void pinAgainAndAgain() {
        byte[] bytes;
        String name = PinsItsCarrier.class.getName();
        try (InputStream in = ParkTruthTarget.class.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        while (true) {
            ClassLoader fresh = new ClassLoader(ParkTruthTarget.class.getClassLoader()) {
                @Override
                protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
                    return n.equals(name) ? defineClass(n, bytes, 0, bytes.length) : super.loadClass(n, resolve);
                }
            };
            try {
                Class.forName(name, true, fresh);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            pause(PIN_EVERY_MILLIS);
        }
    }

    static Thread platform(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    static Thread virtual(String name, Runnable body) throws Exception {
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Object virtual = Thread.class.getMethod("ofVirtual").invoke(null);
        virtual = builder.getMethod("name", String.class).invoke(virtual, name);
        return (Thread) builder.getMethod("unstarted", Runnable.class).invoke(virtual, body);
    }

    private static String write(Path file) {
        List<String> lines = new ArrayList<>();
        for (String wait; (wait = WAITS.poll()) != null; ) {
            lines.add(wait);
        }
        try {
            Files.write(file, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "wrote " + lines.size();
    }

    public static void main(String[] args) throws Exception {
        List<Thread> threads = new ArrayList<>();
        threads.add(platform("lock-owner", () -> own(LOCK)));
        for (int i = 1; i <= LOCK_WAITERS; i++) {
            threads.add(platform("lock-waiter-" + i, () -> waitFor(LOCK, "lock")));
        }
        for (int i = 1; i <= BORROWERS; i++) {
            threads.add(platform("borrower-" + i, ParkTruthTarget::handleRequests));
        }
        for (int i = 1; i <= SEMAPHORE_THREADS; i++) {
            threads.add(platform("permit-" + i, ParkTruthTarget::holdPermits));
        }
        threads.add(platform("latch-waiter", ParkTruthTarget::awaitLatches));
        threads.add(platform("latch-opener", ParkTruthTarget::openLatches));
        int[] workers = {0};
        ExecutorService pool = Executors.newFixedThreadPool(POOL_SIZE, r -> platform("worker-" + ++workers[0], r));
        threads.add(platform("task-giver", () -> {
            while (true) {
                pool.execute(() -> { });
                pause(TASK_EVERY_MILLIS);
            }
        }));
        if (args.length > 0 && args[0].equals("virtual")) {
            threads.add(virtual("v-owner", () -> own(VIRTUAL_LOCK)));
            for (int i = 1; i <= VIRTUAL_WAITERS; i++) {
                threads.add(virtual("v-waiter-" + i, () -> waitFor(VIRTUAL_LOCK, "vlock")));
            }
            threads.add(virtual("v-pinned", ParkTruthTarget::pinAgainAndAgain));
        }
        threads.forEach(Thread::start);
        TargetMain.serve(line -> line.startsWith("write ") ? write(Path.of(line.substring("write ".length())))
                : line.equals("now") ? Long.toString(System.nanoTime()) : "unknown " + line);
    }
}
