package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Tomcat-like connector: fifty pool threads whose names the kernel cuts to the same 15 bytes
 * ({@code http-nio-18080-}), an acceptor in accept(), a poller in Object.wait, twenty workers that
 * burn CPU in short bursts (their CPU times close and moving: what defeated telling them apart by
 * CPU time) while the others are parked, and short-lived workers that come and go.
 */
public final class PoolTarget {
    public static final String PREFIX = "http-nio-18080-";
    public static final int WORKERS = 50;
    public static final int BUSY = 20;
    private static final Object POLLER_WAKEUP = new Object();
    static volatile long sink;

    private PoolTarget() {
    }

    public static void main(String[] args) throws Exception {
        AtomicInteger next = new AtomicInteger(1);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(WORKERS, WORKERS, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, PREFIX + "exec-" + next.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        });
        pool.prestartAllCoreThreads();
        for (int i = 0; i < BUSY; i++) {
            pool.execute(PoolTarget::burnInBursts);
        }
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        TargetMain.start(PREFIX + "Acceptor", () -> {
            try {
                socket.accept().close();
            } catch (Exception ignored) {
                // the target ends
            }
        });
        TargetMain.start(PREFIX + "Poller", () -> {
            synchronized (POLLER_WAKEUP) {
                while (true) {
                    try {
                        POLLER_WAKEUP.wait(1_000);
                    } catch (InterruptedException ignored) {
                        // keep polling
                    }
                }
            }
        });
        AtomicInteger extra = new AtomicInteger(WORKERS + 1);
        TargetMain.start(PREFIX + "churn", () -> {
            while (true) {
                Thread worker = TargetMain.start(PREFIX + "exec-" + extra.getAndIncrement(), () -> pause(30));
                pause(20);
                try {
                    worker.join();
                } catch (InterruptedException ignored) {
                    // next one
                }
            }
        });
        TargetMain.serve();
    }

    private static void burnInBursts() {
        while (true) {
            long until = System.nanoTime() + 1_000_000L;
            long x = 0;
            while (System.nanoTime() < until) {
                x += System.nanoTime() & 7;
            }
            sink = x;
            pause(39);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ignored) {
            // go on
        }
    }
}
