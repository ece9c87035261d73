import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The benchmark target: N virtual threads (default 100,000): 90% sleeping, 9% parked, 1% parked
 * on a ReentrantLock a platform thread owns, and 10 blocked on a monitor a platform thread holds.
 * Prints "READY <pid>" and then waits for its standard input to close.
 */
public final class ManyVirtualThreads {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        Object monitor = new Object();
        ReentrantLock lock = new ReentrantLock();
        CountDownLatch held = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            lock.lock();
            synchronized (monitor) {
                held.countDown();
                LockSupport.park();
            }
        }, "bench-owner");
        owner.setDaemon(true);
        owner.start();
        held.await();
        CountDownLatch started = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            int kind = i % 100;
            Thread.ofVirtual().name(i % 2 == 0 ? "" : "bench-" + i).start(() -> {
                started.countDown();
                if (kind < 90) {
                    sleep();
                } else if (kind < 99) {
                    while (true) {
                        LockSupport.park();
                    }
                } else {
                    lock.lock();
                }
            });
        }
        for (int i = 0; i < 10; i++) {
            Thread.ofVirtual().name("bench-blocked-" + i).start(() -> {
                synchronized (monitor) {
                    LockSupport.park();
                }
            });
        }
        started.await();
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        System.in.read();
    }

    private static void sleep() {
        while (true) {
            try {
                Thread.sleep(3_600_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
