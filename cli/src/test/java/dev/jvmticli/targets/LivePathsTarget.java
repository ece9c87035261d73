package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Two leaks whose allocation site and holder it knows, each beside churn of its own thread (a
 * thread that allocates often is sampled as faithfully as it allocates): the thread "cache-filler"
 * puts a {@link Cached} into the static map {@link #CACHE} in {@link #fillCache}, the thread
 * "session-worker" adds a {@link SessionItem} to its own thread-local list in {@link #fillSession};
 * both make 256 KiB of garbage in {@link #churn} between two. Each holds a 4 KiB array. A thread
 * runs System.gc() every 500 ms (ZGC's young collections do not age alloc --live's samples). Command
 * {@code go} starts them; each leaks at most LIMIT objects.
 */
public final class LivePathsTarget {
    static final int LIMIT = 4000;
    static final Map<Integer, Cached> CACHE = new HashMap<>();
    static final ThreadLocal<List<SessionItem>> SESSION = ThreadLocal.withInitial(ArrayList::new);
    static volatile Object sink;

    private LivePathsTarget() {
    }

    public static final class Cached {
        final byte[] payload = new byte[4096];
    }

    public static final class SessionItem {
        final byte[] payload = new byte[4096];
    }

    static void fillCache() {
        if (CACHE.size() < LIMIT) {
            CACHE.put(CACHE.size(), new Cached());
        }
    }

    static void fillSession() {
        List<SessionItem> items = SESSION.get();
        if (items.size() < LIMIT) {
            items.add(new SessionItem());
        }
    }

    static void churn() {
        for (int i = 0; i < 64; i++) {
            sink = new byte[4096];
        }
    }

    private static void loop(Runnable leak) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                churn();
                leak.run();
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws Exception {
        TargetMain.serve(line -> {
            if (!line.equals("go")) {
                return "unknown command " + line;
            }
            TargetMain.start("cache-filler", () -> loop(LivePathsTarget::fillCache));
            TargetMain.start("session-worker", () -> loop(LivePathsTarget::fillSession));
            TargetMain.start("gc-every-500ms", () -> {
                try {
                    while (true) {
                        Thread.sleep(500);
                        System.gc();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            return "going";
        });
    }
}
