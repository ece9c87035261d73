package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A server on virtual threads with its connection pool exhausted (JDK 21+; virtual threads made
 * through reflection, since the tests compile for Java 17): POOL_SIZE connections held by
 * POOL_SIZE requests that sleep in {@link OrderService#countOrdersSlowly} holding them, WAITERS
 * requests parked in {@link ConnectionPool#borrow} waiting for one; an idle executor whose
 * workers wait for work; and CHURNERS virtual threads that, without pause, enter one shared
 * monitor and spin in it (so that others block at it and unmount), yield their carrier and now
 * and then park a millisecond, so that carriers mount and unmount all the time while a dump is
 * taken.
 */
public final class VirtualPoolTarget {
    public static final int POOL_SIZE = 4;
    public static final int WAITERS = 200;
    public static final int CHURNERS = 24;
    public static final int IDLE_WORKERS = 3;

    static final Object SHARED = new Object();

    private VirtualPoolTarget() {
    }

    /** A pool of connections handed out from a queue, as a JDBC pool hands them out. */
    public static final class ConnectionPool {
        private final BlockingQueue<Object> idle = new ArrayBlockingQueue<>(POOL_SIZE);

        ConnectionPool() {
            for (int i = 0; i < POOL_SIZE; i++) {
                idle.add(new Object());
            }
        }

        Object borrow() throws InterruptedException {
            Object connection = idle.poll(1, TimeUnit.HOURS);
            if (connection == null) {
                throw new IllegalStateException("no connection within an hour");
            }
            return connection;
        }
    }

    /** What a request does: borrow a connection, then a slow query while holding it. */
    public static final class OrderService {
        private final ConnectionPool pool;

        OrderService(ConnectionPool pool) {
            this.pool = pool;
        }

        void countOrders(CountDownLatch borrowed) throws InterruptedException {
            Object connection = pool.borrow();
            borrowed.countDown();
            countOrdersSlowly(connection);
        }

        static void countOrdersSlowly(Object connection) throws InterruptedException {
            while (connection != null) {
                Thread.sleep(60_000);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        ExecutorService idleExecutor = Executors.newFixedThreadPool(IDLE_WORKERS, r -> new Thread(r, "idle-worker"));
        for (int i = 0; i < IDLE_WORKERS; i++) {
            idleExecutor.submit(() -> LocksTarget.sink++);
        }

        OrderService orders = new OrderService(new ConnectionPool());
        CountDownLatch borrowed = new CountDownLatch(POOL_SIZE);
        for (int i = 0; i < POOL_SIZE; i++) {
            VirtualThreadsTarget.startVirtual("request-holding-" + i, () -> request(orders, borrowed));
        }
        borrowed.await();
        Thread last = null;
        for (int i = 0; i < WAITERS; i++) {
            last = VirtualThreadsTarget.startVirtual("request-" + i, () -> request(orders, borrowed));
        }
        TargetMain.awaitState(last, Thread.State.TIMED_WAITING);

        for (int i = 0; i < CHURNERS; i++) {
            VirtualThreadsTarget.startVirtual("churn-" + i, VirtualPoolTarget::churn);
        }
        TargetMain.serve();
    }

    private static void request(OrderService orders, CountDownLatch borrowed) {
        try {
            orders.countOrders(borrowed);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void churn() {
        for (long i = 0; ; i++) {
            synchronized (SHARED) {
                spin(20_000);
            }
            Thread.yield(); // unmounts and mounts again
            if (i % 8 == 0) {
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
