package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.MethodRef;
import dev.jvmticli.client.ParksReport;
import dev.jvmticli.client.ParksReport.Lock;
import dev.jvmticli.client.ParksReport.Site;
import dev.jvmticli.client.ParksReport.ThreadCount;
import java.util.List;
import org.junit.jupiter.api.Test;

class ParksViewTest {
    private static final List<MethodRef> METHODS = List.of(
            new MethodRef("Ljava/util/concurrent/locks/LockSupport;", "park", "()V", true),
            new MethodRef("Lapp/Latch;", "await", "()V", false),
            new MethodRef("Lapp/Gate;", "pass", "()V", false),
            new MethodRef("Lapp/Main;", "run", "()V", false),
            new MethodRef("Ljava/util/concurrent/locks/ReentrantLock;", "lock", "()V", true),
            new MethodRef("Ljava/util/concurrent/ThreadPoolExecutor;", "getTask", "()Ljava/lang/Runnable;", true),
            new MethodRef("Ljava/lang/Thread;", "run", "()V", true));
    private static final List<Lock> LOCKS = List.of(new Lock(0, null, 0, "park", 5, 50_000_000L, 20_000_000L),
            new Lock(1, "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;", 0xab, "acquire", 4, 8_000_000L, 2_000_000L));

    private static Site site(int lock, long count, long nanos, List<ThreadCount> waiters, long[]... frames) {
        return new Site(lock, count, nanos, nanos, 1, new long[][] {{1, nanos, count}}, waiters, 0, List.of(), 0, count, frames);
    }

    private static ParksReport report() {
        List<ThreadCount> one = List.of(new ThreadCount("latch-waiter", 12L, false, 3));
        List<ThreadCount> two = List.of(new ThreadCount("a", 13L, false, 2), new ThreadCount("v", 14L, true, 2));
        List<Site> sites = List.of(
                site(0, 3, 30_000_000L, one, new long[] {0, 0, 371}, new long[] {1, 0, 20}, new long[] {3, 0, 9}),
                site(0, 2, 20_000_000L, List.of(new ThreadCount("gate", 15L, false, 2)), new long[] {0, 0, 371}, new long[] {2, 0, 7}),
                site(1, 4, 8_000_000L, two, new long[] {0, 0, 371}, new long[] {4, 0, 323}, new long[] {3, 0, 11}),
                site(1, 9, 900_000_000L, List.of(new ThreadCount("worker-1", 16L, false, 9)), new long[] {0, 0, 371}, new long[] {5, 0, 1061},
                        new long[] {6, 0, 840}));
        return new ParksReport(1_000_000_000L, 0, 1_000_000_000L, 18, 0, null, List.of(), LOCKS, sites,
                new ParksReport.Pinned(false, 0, 0, 0, List.of()), METHODS, 0, 0, List.of(), List.of(), 0, 0, 0, List.of(), 0, null);
    }

    /** Parks without a blocker share one lock entry in the agent: summary.md's rows keep them apart by site. */
    @Test
    void parksWithoutABlockerAreOneRowPerSite() {
        List<ParksView.Row> rows = ParksView.blockers(report()).stream().filter(ParksView.Row::noBlocker).toList();
        assertEquals(List.of("java.util.concurrent.locks.LockSupport.park:371 <- app.Latch.await:20",
                "java.util.concurrent.locks.LockSupport.park:371 <- app.Gate.pass:7"), rows.stream().map(ParksView.Row::site).toList());
        assertEquals(List.of(3L, 2L), rows.stream().map(ParksView.Row::waits).toList());
    }

    /** The flame graph: the thread (or how many) at the root, the stack outermost first, the blocker as the leaf; idle waits left out. */
    @Test
    void flameRootsTheThreadsAndLeavesTheBlocker() {
        assertEquals("[2 threads];app.Main.run;java.util.concurrent.locks.ReentrantLock.lock;java.util.concurrent.locks.LockSupport.park;"
                        + "java.util.concurrent.locks.ReentrantLock$NonfairSync@ab 8000000\n"
                        + "[gate];app.Gate.pass;java.util.concurrent.locks.LockSupport.park;no blocker 20000000\n"
                        + "[latch-waiter];app.Main.run;app.Latch.await;java.util.concurrent.locks.LockSupport.park;no blocker 30000000\n",
                FlameGraph.collapsed(ParksView.flame(report())));
    }
}
