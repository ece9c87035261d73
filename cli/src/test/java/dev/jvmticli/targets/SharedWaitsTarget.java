package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.StampedLock;

/**
 * Waits in a shared acquire beside waits in an exclusive one, each on threads with known names: a
 * latch awaited by one idle thread (Kafka's back-off sleep); a semaphore with no permit left awaited
 * by two; a read lock awaited behind its writer; a writer queued behind a reader; a StampedLock's
 * reader behind its writer.
 */
public final class SharedWaitsTarget {
    static final CountDownLatch NEVER = new CountDownLatch(1);
    static final Semaphore NO_PERMITS = new Semaphore(0);

    private SharedWaitsTarget() {
    }

    public static void main(String[] args) throws Exception {
        Thread latch = TargetMain.start("latch-waiter", () -> await(NEVER));
        Thread permit1 = TargetMain.start("permit-waiter-1", SharedWaitsTarget::acquirePermit);
        Thread permit2 = TargetMain.start("permit-waiter-2", SharedWaitsTarget::acquirePermit);

        ReentrantReadWriteLock held = new ReentrantReadWriteLock();
        CountDownLatch writing = new CountDownLatch(1);
        TargetMain.start("rw-writer", () -> {
            held.writeLock().lock();
            writing.countDown();
            LocksTarget.sleepForever();
        });
        writing.await();
        Thread reader = TargetMain.start("rw-reader", () -> held.readLock().lock());

        ReentrantReadWriteLock read = new ReentrantReadWriteLock();
        CountDownLatch reading = new CountDownLatch(1);
        TargetMain.start("rw-reading", () -> {
            read.readLock().lock();
            reading.countDown();
            LocksTarget.sleepForever();
        });
        reading.await();
        Thread writer = TargetMain.start("rw-writer-waiting", () -> read.writeLock().lock());

        StampedLock stamped = new StampedLock();
        CountDownLatch stampedWriting = new CountDownLatch(1);
        TargetMain.start("stamped-writer", () -> {
            stamped.writeLock();
            stampedWriting.countDown();
            LocksTarget.sleepForever();
        });
        stampedWriting.await();
        Thread stampedReader = TargetMain.start("stamped-reader", stamped::readLock);

        for (Thread t : new Thread[] {latch, permit1, permit2, reader, writer, stampedReader}) {
            TargetMain.awaitState(t, Thread.State.WAITING);
        }
        TargetMain.serve();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void acquirePermit() {
        NO_PERMITS.acquireUninterruptibly();
    }
}
