package dev.jvmticli.springshop;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.springframework.stereotype.Component;

/**
 * The shop's own record of its pool: each getConnection (when it was asked for, when it came) and
 * each holding of a connection (the thread, when it got it and when it gave it back), on
 * System.nanoTime's clock, and the holdings under way. Lock-free, so that keeping it adds no wait
 * of its own; the last KEPT of each.
 */
@Component
public class PoolRecord {
    private static final int KEPT = 200_000;

    /** One getConnection: asked at, answered at. */
    record Borrow(long askedNanos, long gotNanos) {
    }

    /** One connection held by a thread, from getConnection's answer to its close. */
    record Holding(String thread, long threadId, long fromNanos, long toNanos) {
    }

    private final ConcurrentLinkedQueue<Borrow> borrows = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Holding> holdings = new ConcurrentLinkedQueue<>();
    private final AtomicInteger borrowsKept = new AtomicInteger();
    private final AtomicInteger holdingsKept = new AtomicInteger();
    private final Map<Thread, Long> holding = new ConcurrentHashMap<>();

    void borrowed(long askedNanos, long gotNanos) {
        holding.put(Thread.currentThread(), gotNanos);
        borrows.add(new Borrow(askedNanos, gotNanos));
        if (borrowsKept.incrementAndGet() > KEPT && borrows.poll() != null) {
            borrowsKept.decrementAndGet();
        }
    }

    @SuppressWarnings("deprecation") // Thread.threadId is Java 19+; this compiles for 17, and getId is the same number
    void held(long fromNanos, long toNanos) {
        Thread t = Thread.currentThread();
        holdings.add(new Holding(t.getName(), t.getId(), fromNanos, toNanos));
        holding.remove(t);
        if (holdingsKept.incrementAndGet() > KEPT && holdings.poll() != null) {
            holdingsKept.decrementAndGet();
        }
    }

    /** The getConnection calls that ran at some moment of [since, until]: asked at, answered at, each. */
    List<long[]> borrows(long since, long until) {
        return borrows.stream().filter(b -> b.askedNanos() <= until && b.gotNanos() >= since).map(b -> new long[] {b.askedNanos(), b.gotNanos()})
                .toList();
    }

    /**
     * The threads (name#id) that held a connection at some moment of [since, until], those that
     * hold one now included (a holding is recorded as it ends).
     */
    @SuppressWarnings("deprecation")
    List<String> holders(long since, long until) {
        Stream<String> ended = holdings.stream().filter(h -> h.fromNanos() <= until && h.toNanos() >= since).map(h -> h.thread() + "#" + h.threadId());
        Stream<String> holdingNow = holding.entrySet().stream().filter(e -> e.getValue() <= until)
                .map(e -> e.getKey().getName() + "#" + e.getKey().getId());
        return Stream.concat(ended, holdingNow).distinct().toList();
    }
}
