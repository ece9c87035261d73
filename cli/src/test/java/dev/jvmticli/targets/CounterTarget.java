package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A target whose own work can be watched: a "counter" thread counts steadily (parking 100 us
 * between steps, so it costs little CPU) and, on request, a "churn" thread starts short-lived
 * threads one after another. Commands: {@code count} (the counter's value), {@code churn on},
 * {@code churn off} (answers how many threads it started).
 */
public final class CounterTarget {
    private static final AtomicLong COUNT = new AtomicLong();
    private static final AtomicLong STARTED = new AtomicLong();
    private static volatile boolean churning;

    private CounterTarget() {
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("counter", () -> {
            while (true) {
                COUNT.incrementAndGet();
                LockSupport.parkNanos(100_000);
            }
        });
        TargetMain.serve(line -> switch (line) {
            case "count" -> Long.toString(COUNT.get());
            case "churn on" -> {
                churning = true;
                TargetMain.start("churn", CounterTarget::churn);
                yield "churning";
            }
            case "churn off" -> {
                churning = false;
                yield Long.toString(STARTED.get());
            }
            default -> "unknown command " + line;
        });
    }

    private static void churn() {
        int n = 0;
        while (churning) {
            long pause = n % 3 * 1_000_000L;
            Thread shortLived = new Thread(() -> LockSupport.parkNanos(pause), "short-lived-" + n++);
            shortLived.setDaemon(true);
            shortLived.start();
            STARTED.incrementAndGet();
            if (n % 8 == 0) {
                LockSupport.parkNanos(1_000_000);
            }
        }
    }
}
