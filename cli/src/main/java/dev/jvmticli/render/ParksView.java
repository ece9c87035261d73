package dev.jvmticli.render;

import dev.jvmticli.analysis.IdleWaits;
import dev.jvmticli.analysis.Latency;
import dev.jvmticli.analysis.MainWait;
import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.MethodRef;
import dev.jvmticli.client.ParksReport;
import dev.jvmticli.client.ParksReport.Lock;
import dev.jvmticli.client.ParksReport.Site;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.render.ContentionView.ThreadCount;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The parks part of `contention`: per blocker and site the waits, their total and p50/p99/max, the
 * threads that waited and the owner each wait began with; idle waits (threads waiting for work, told
 * by {@link IdleWaits} from the site's stack) apart from waits for another thread; the pinned parks
 * of virtual threads.
 */
public final class ParksView {
    /** The blocker of a row of parks without one ({@code LockSupport.park()}, code that parks by hand). */
    public static final String NO_BLOCKER = "no blocker";

    /** How deep the agent takes a stack (its STACK_MAX_FRAMES): a stack that long may have been cut. */
    private static final int AGENT_STACK_FRAMES = 64;
    /** Threads named on a line of the holders' section (JSON has them all). */
    private static final int HOLDERS_NAMED = 10;
    /** Of each blocker shown, its owner's stacks printed (the most read first), and their frames at most. */
    private static final int OWNER_STACKS_SHOWN = 2;
    private static final int OWNER_FRAMES_SHOWN = 12;

    private ParksView() {
    }

    /**
     * One blocker at one site (the JDK method the application called to wait, and the application's frame):
     * its waits, their durations (buckets: {@code [low, high, count]} nanoseconds, as the agent's histogram
     * has them), the waiting threads and the owners seen at the start of a wait.
     */
    public record Row(String blocker, String kind, String site, boolean idle, long waits, long totalNanos, long p50Nanos,
                      long p99Nanos, long maxNanos, long[][] buckets, List<ThreadCount> waiters, long otherWaiters,
                      List<ThreadCount> owners, long otherOwners, long noOwner, List<String> stack) {
        /** Whether its parks had no blocker: then the site alone tells them apart. */
        public boolean noBlocker() {
            return NO_BLOCKER.equals(blocker);
        }
    }

    /**
     * An owner of a blocker in one stack: how many reads found it there (see ParksReport.ownerStacks), and
     * the stack's innermost frame of the application's (null when none or not known).
     */
    public record OwnerStackRow(String blocker, String owner, String thread, Long threadId, boolean virtual, long reads, String applicationFrame,
                                List<String> stack) {
    }

    /** The pinned parks of virtual threads with one stack: how many, in all, the longest, and the threads. */
    public record PinnedRow(long count, long totalNanos, long maxNanos, List<String> threads, List<String> stack) {
    }

    private record Key(int lock, String site, boolean idle) {
    }

    /**
     * Who holds up the waits on a blocker that has no owner to read (a queue, a condition: no
     * exclusiveOwnerThread), read from the threads' frames after the window: the threads then
     * waiting on it (waiting), and those inside the same caller and waiting for nothing (holders:
     * waiting.inside(), or those read again together at one instant when atOnce). What their frames
     * show, not a fact of ownership. sharedFrame: the frame they are inside (MainWait#insideOf).
     */
    public record Holders(String blocker, MainWait waiting, Frame sharedFrame, List<ThreadStack> holders, boolean atOnce) {
    }

    public static List<Row> rows(ParksReport report) {
        return rows(report, true);
    }

    /**
     * One row per blocker, its sites merged (the site shown: the one of its most waits), idle waits apart;
     * the parks without a blocker one row per site, as there is nothing else to tell them apart by.
     */
    public static List<Row> blockers(ParksReport report) {
        return rows(report, false);
    }

    /**
     * The blockers threads waited on for another thread (not idly) that no wait began with an owner
     * of (a queue, a condition, a future, a semaphore nobody owns): the most waited on in all first.
     */
    public static List<LockRef> ownerlessWaits(ParksReport report) {
        Map<String, LockRef> refs = new LinkedHashMap<>();
        report.locks().forEach(l -> refs.put(blockerName(l), new LockRef(JvmNames.className(l.classSignature()), l.identityHash())));
        return blockers(report).stream().filter(r -> !r.idle() && r.owners().isEmpty() && r.otherOwners() == 0 && refs.containsKey(r.blocker()))
                .map(r -> refs.get(r.blocker())).distinct().toList();
    }

    private static List<Row> rows(ParksReport report, boolean bySite) {
        Map<Integer, Lock> locks = new LinkedHashMap<>();
        report.locks().forEach(l -> locks.put(l.id(), l));
        Map<Key, List<Site>> groups = new LinkedHashMap<>();
        for (Site s : report.sites()) {
            boolean idle = idle(report, s);
            Lock lock = locks.get(s.lock());
            boolean keyedBySite = bySite || (lock != null && lock.classSignature() == null);
            groups.computeIfAbsent(new Key(s.lock(), keyedBySite ? site(report.methods(), s.frames()) : null, idle), k -> new ArrayList<>()).add(s);
        }
        List<Row> rows = new ArrayList<>();
        groups.forEach((key, sites) -> {
            Lock lock = locks.get(key.lock());
            long[][] buckets = merged(sites);
            long min = sites.stream().mapToLong(Site::minNanos).min().orElse(0);
            long max = sites.stream().mapToLong(Site::maxNanos).max().orElse(0);
            Site first = sites.stream().max(Comparator.comparingLong(Site::count)).orElseThrow();
            rows.add(new Row(lock == null ? "?" : blockerName(lock), lock == null ? "?" : lock.kind(),
                    key.site() != null ? key.site() : site(report.methods(), first.frames()), key.idle(),
                    sites.stream().mapToLong(Site::count).sum(), sites.stream().mapToLong(Site::totalNanos).sum(),
                    Latency.percentile(buckets, min, max, 0.50), Latency.percentile(buckets, min, max, 0.99), max, buckets,
                    counts(sites, Site::waiters), sites.stream().mapToLong(Site::otherWaiters).sum(), counts(sites, Site::owners),
                    sites.stream().mapToLong(Site::otherOwners).sum(), sites.stream().mapToLong(Site::noOwner).sum(),
                    Arrays.stream(first.frames()).map(f -> JvmNames.frame(report.methods(), f)).toList()));
        });
        rows.sort(Comparator.comparing(Row::idle).thenComparing(Comparator.comparingLong(Row::totalNanos).reversed()));
        return rows;
    }

    /** Whether the site's threads wait for work ({@link IdleWaits}, from its stack), not for another thread. */
    private static boolean idle(ParksReport report, Site s) {
        boolean virtual = !s.waiters().isEmpty() && s.waiters().stream().allMatch(w -> Boolean.TRUE.equals(w.virtual()));
        return idle(report.methods(), s.frames(), virtual);
    }

    /** Whether threads parked at this stack wait for work ({@link IdleWaits}), not for another thread. */
    static boolean idle(List<MethodRef> methods, long[][] stack, boolean virtual) {
        return IdleWaits.isIdleWait(frames(methods, stack), virtual, stack.length >= AGENT_STACK_FRAMES);
    }

    /**
     * The waits for another thread as a flame graph's stacks, as {@link ContentionView#flame} draws the
     * monitors': the root frame the thread that waited (the threads, {@code [N threads]}, when several
     * parked at one stack: the agent counts each thread's parks there, not their time), then the stack,
     * outermost first, the blocker as the leaf; the weight nanoseconds parked. Idle waits are left out.
     */
    public static List<FlameGraph.Sample> flame(ParksReport report) {
        Map<Integer, Lock> locks = new LinkedHashMap<>();
        report.locks().forEach(l -> locks.put(l.id(), l));
        List<FlameGraph.Sample> samples = new ArrayList<>();
        for (Site s : report.sites()) {
            if (idle(report, s)) {
                continue;
            }
            List<String> frames = new ArrayList<>();
            if (s.waiters().size() == 1 && s.otherWaiters() == 0) {
                ParksReport.ThreadCount t = s.waiters().get(0);
                frames.add("[" + new ThreadCount(t.thread() == null ? "?" : t.thread(), t.threadId(), Boolean.TRUE.equals(t.virtual()), 0).label() + "]");
            } else {
                frames.add("[" + s.waiters().size() + (s.otherWaiters() > 0 ? "+" : "") + " threads]");
            }
            for (int i = s.frames().length - 1; i >= 0; i--) {
                frames.add(JvmNames.method(report.methods(), s.frames()[i][0]));
            }
            Lock lock = locks.get(s.lock());
            frames.add(lock == null ? "?" : blockerName(lock));
            samples.add(new FlameGraph.Sample(frames, Math.max(s.totalNanos(), s.count())));
        }
        return samples;
    }

    /** The episodes the agent kept (the first of the window), grouped by stack, the longest in all first. */
    public static List<PinnedRow> pinned(ParksReport report) {
        Map<List<String>, List<ParksReport.Episode>> byStack = new LinkedHashMap<>();
        for (ParksReport.Episode e : report.pinned().episodes()) {
            byStack.computeIfAbsent(Arrays.stream(e.frames()).map(f -> JvmNames.frame(report.methods(), f)).toList(), k -> new ArrayList<>()).add(e);
        }
        List<PinnedRow> rows = new ArrayList<>();
        byStack.forEach((stack, episodes) -> rows.add(new PinnedRow(episodes.size(), episodes.stream().mapToLong(ParksReport.Episode::nanos).sum(),
                episodes.stream().mapToLong(ParksReport.Episode::nanos).max().orElse(0),
                episodes.stream().map(e -> new ThreadCount(e.thread() == null ? "?" : e.thread(), e.threadId(), Boolean.TRUE.equals(e.virtual()), 1).label())
                        .distinct().toList(), stack)));
        rows.sort(Comparator.comparingLong(PinnedRow::totalNanos).reversed());
        return rows;
    }

    /** The owners' stacks read as waits began, the most read first. */
    public static List<OwnerStackRow> ownerStacks(ParksReport report) {
        Map<Integer, Lock> locks = new LinkedHashMap<>();
        report.locks().forEach(l -> locks.put(l.id(), l));
        List<OwnerStackRow> rows = new ArrayList<>();
        for (ParksReport.OwnerStack o : report.ownerStacks()) {
            Lock lock = locks.get(o.lock());
            ThreadCount owner = new ThreadCount(o.thread() == null ? "?" : o.thread(), o.threadId(), Boolean.TRUE.equals(o.virtual()), o.count());
            rows.add(new OwnerStackRow(lock == null ? "?" : blockerName(lock), owner.label(), owner.thread(), o.threadId(), owner.virtual(), o.count(),
                    JvmNames.applicationFrame(report.methods(), o.frames()), Arrays.stream(o.frames()).map(f -> JvmNames.frame(report.methods(), f)).toList()));
        }
        rows.sort(Comparator.comparingLong(OwnerStackRow::reads).reversed());
        return rows;
    }

    /**
     * Where the owners of blocker were read holding it, in a few words: the owner and first frame
     * outside the JDK of the stack most read, and how many of all reads were that stack; empty when
     * none was read.
     */
    static Optional<String> ownerPlace(ParksReport report, String blocker) {
        List<OwnerStackRow> stacks = ownerStacks(report).stream().filter(o -> o.blocker().equals(blocker)).toList();
        if (stacks.isEmpty()) {
            return Optional.empty();
        }
        OwnerStackRow most = stacks.get(0);
        String frame = most.applicationFrame() != null ? most.applicationFrame() : most.stack().isEmpty() ? "?" : most.stack().get(0);
        return Optional.of(most.owner() + " read holding it in " + frame + " (" + most.reads() + " of "
                + stacks.stream().mapToLong(OwnerStackRow::reads).sum() + " reads)");
    }

    static String blockerName(Lock lock) {
        return lock.classSignature() == null ? NO_BLOCKER : JvmNames.className(lock.classSignature()) + "@" + Long.toHexString(lock.identityHash());
    }

    private static List<Frame> frames(List<MethodRef> methods, long[][] frames) {
        List<Frame> resolved = new ArrayList<>(frames.length);
        for (long[] f : frames) {
            MethodRef m = f[0] >= 0 && f[0] < methods.size() ? methods.get((int) f[0]) : null;
            resolved.add(new Frame(m == null ? "?" : JvmNames.className(m.classSignature()), m == null || m.name() == null ? "?" : m.name(),
                    null, f.length > 2 ? (int) f[2] : -1, false));
        }
        return resolved;
    }

    /**
     * The JDK method the application called to wait (the outermost of the JDK frames above the first
     * frame of the application's), then that frame: {@code ReentrantLock.lock:322 <- app.Shop.order:40}.
     * With no frame of the application's, the first frame outside java.util.concurrent.locks and the
     * ForkJoinPool's managed blocking ({@code LinkedBlockingQueue.take}, {@code ForkJoinPool.awaitWork}).
     */
    static String site(List<MethodRef> methods, long[][] frames) {
        int application = -1;
        for (int i = 0; i < frames.length && application < 0; i++) {
            MethodRef m = frames[i][0] >= 0 && frames[i][0] < methods.size() ? methods.get((int) frames[i][0]) : null;
            if (m != null && Boolean.FALSE.equals(m.jdk())) {
                application = i;
            }
        }
        if (application > 0) {
            return JvmNames.siteWithCaller(JvmNames.frame(methods, frames[application - 1]), JvmNames.frame(methods, frames[application]));
        }
        if (application == 0) {
            return JvmNames.frame(methods, frames[0]);
        }
        for (long[] f : frames) {
            String method = JvmNames.method(methods, f[0]);
            if (!method.startsWith("java.util.concurrent.locks.") && !method.startsWith("java.util.concurrent.ForkJoinPool.managedBlock")
                    && !method.startsWith("java.util.concurrent.ForkJoinPool.unmanagedBlock")) {
                return JvmNames.frame(methods, f);
            }
        }
        return frames.length == 0 ? "-" : JvmNames.frame(methods, frames[0]);
    }

    private static long[][] merged(List<Site> sites) {
        Map<Long, long[]> byLow = new TreeMap<>();
        for (Site s : sites) {
            for (long[] b : s.buckets()) {
                byLow.merge(b[0], b.clone(), (a, c) -> new long[] {a[0], a[1], a[2] + c[2]});
            }
        }
        return byLow.values().toArray(new long[0][]);
    }

    private static List<ThreadCount> counts(List<Site> sites, Function<Site, List<ParksReport.ThreadCount>> of) {
        Map<String, ThreadCount> merged = new LinkedHashMap<>();
        for (Site s : sites) {
            for (ParksReport.ThreadCount t : of.apply(s)) {
                ThreadCount c = new ThreadCount(t.thread() == null ? "?" : t.thread(), t.threadId(), Boolean.TRUE.equals(t.virtual()), t.count());
                merged.merge(c.thread() + "#" + c.threadId(), c, (a, b) -> new ThreadCount(a.thread(), a.threadId(), a.virtual(), a.count() + b.count()));
            }
        }
        return merged.values().stream().sorted(Comparator.comparingLong(ThreadCount::count).reversed().thenComparing(ThreadCount::label)).toList();
    }

    public static Map<String, Object> document(ParksReport report, List<Holders> holders) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("sinceNanos", report.sinceNanos());
        doc.put("untilNanos", report.untilNanos());
        doc.put("parks", report.parks());
        doc.put("dropped", report.dropped());
        doc.put("percentileError", Latency.RELATIVE_ERROR);
        doc.put("sites", rows(report));
        doc.put("stillWaiting", StillWaitingView.document(StillWaitingView.parks(report), true));
        doc.put("stillWaitingUnread", report.stillWaitingUnread());
        doc.put("stillWaitingDropped", report.stillWaitingDropped());
        doc.put("untracked", report.untracked());
        doc.put("parkedBefore", StillWaitingView.document(StillWaitingView.parkedBefore(report), false));
        doc.put("parkedBeforeDropped", report.parkedBeforeDropped());
        if (report.parkedBeforeIncomplete() != null) {
            doc.put("parkedBeforeIncomplete", report.parkedBeforeIncomplete());
        }
        Map<String, Object> pinned = new LinkedHashMap<>();
        pinned.put("watched", report.pinned().watched());
        pinned.put("count", report.pinned().count());
        pinned.put("totalNanos", report.pinned().totalNanos());
        pinned.put("maxNanos", report.pinned().maxNanos());
        pinned.put("episodesKept", report.pinned().episodes().size());
        pinned.put("stacks", pinned(report));
        doc.put("pinned", pinned);
        doc.put("holders", holders.stream().map(ParksView::holdersDocument).toList());
        doc.put("ownerSamplesStale", report.ownerSamplesStale());
        doc.put("ownerReadsDropped", report.ownerReadsDropped());
        doc.put("ownerStacks", ownerStacks(report));
        doc.put("classes", report.classes());
        if (report.restoreFailure() != null) {
            doc.put("restoreFailure", report.restoreFailure());
        }
        return doc;
    }

    private static Map<String, Object> holdersDocument(Holders h) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("blocker", h.blocker());
        doc.put("waitingAfter", h.waiting().waiters().size());
        doc.put("waitFrame", frameText(h.waiting().waitFrame()));
        doc.put("callerFrame", frameText(h.waiting().callerFrame()));
        doc.put("sharedFrame", frameText(h.sharedFrame()));
        doc.put("readAtOnce", h.atOnce());
        doc.put("threads", h.holders().stream().map(t -> {
            Map<String, Object> thread = new LinkedHashMap<>();
            thread.put("thread", t.thread().name());
            thread.put("threadId", t.thread().id());
            thread.put("virtual", t.thread().virtual());
            thread.put("state", t.thread().state());
            thread.put("where", MainWait.whereIs(t).stream().map(ParksView::frameText).toList());
            return thread;
        }).toList());
        return doc;
    }

    private static String frameText(Frame frame) {
        return frame == null ? null : ThreadDumpText.frameLine(frame).substring("\tat ".length());
    }

    static String owners(Row row) {
        String seen = ContentionView.counts(row.owners());
        long others = row.otherOwners();
        String text = row.owners().isEmpty() ? "" : seen;
        if (others > 0) {
            text += (text.isEmpty() ? "" : ", ") + "others (" + others + ")";
        }
        if (row.noOwner() > 0 && !row.kind().equals("acquire")) {
            return text.isEmpty() ? "-" : text;
        }
        if (row.noOwner() > 0) {
            text += (text.isEmpty() ? "" : ", ") + "none (" + row.noOwner() + ")";
        }
        return text.isEmpty() ? "-" : text;
    }

    private static Table table() {
        return new Table("WAITS", "TOTAL", "P50", "P99", "MAX", "BLOCKER", "OWNER AT THE START (waits)", "THREADS (waits)", "SITE")
                .alignRight(0, 1, 2, 3, 4);
    }

    private static void add(Table table, Row r) {
        table.add(Long.toString(r.waits()), TraceView.duration(r.totalNanos()), TraceView.duration(r.p50Nanos()),
                TraceView.duration(r.p99Nanos()), TraceView.duration(r.maxNanos()), r.blocker(), owners(r),
                (r.waiters().size() + (r.otherWaiters() > 0 ? "+" : "")) + ": " + ContentionView.counts(r.waiters()), r.site());
    }

    public static void print(PrintWriter out, ParksReport report, int top, List<Holders> holders) {
        List<Row> rows = rows(report);
        long total = rows.stream().mapToLong(Row::totalNanos).sum();
        long withoutBlocker = rows.stream().filter(Row::noBlocker).mapToLong(Row::waits).sum();
        out.printf("%n%d parks ended in %s s (LockSupport.park*), %d of them without a blocker, %s parked in all; percentiles within %.1f%%%n",
                report.parks(), Sizes.seconds(report.durationNanos()), withoutBlocker, TraceView.duration(total), 100 * Latency.RELATIVE_ERROR);
        if (report.dropped() > 0) {
            out.printf("(%d parks did not fit the agent's tables: counted in the total only)%n", report.dropped());
        }
        List<Row> waits = rows.stream().filter(r -> !r.idle()).toList();
        List<Row> idle = rows.stream().filter(Row::idle).toList();
        if (!waits.isEmpty()) {
            out.println();
            out.println("Waiting for another thread (locks, semaphores, conditions, futures):");
            Table t = table();
            waits.stream().limit(top).forEach(r -> add(t, r));
            t.print(out);
            printOwnerStacks(out, report, waits.stream().limit(top).map(Row::blocker).distinct().toList());
        }
        if (!idle.isEmpty()) {
            out.println();
            out.println("Idle: threads waiting for work (a pool's workers, a queue's takers in their own loop), not for another thread:");
            Table t = table();
            idle.stream().limit(top).forEach(r -> add(t, r));
            t.print(out);
        }
        StillWaitingView.printParks(out, report, top);
        printHolders(out, holders);
        ParksReport.Pinned pinned = report.pinned();
        out.println();
        if (!pinned.watched()) {
            out.println("Pinned virtual threads: none to watch (this JDK has no virtual threads)");
        } else {
            out.printf("Pinned virtual threads: %d park(s) on the carrier, %s in all, longest %s%n", pinned.count(),
                    TraceView.duration(pinned.totalNanos()), TraceView.duration(pinned.maxNanos()));
            if (pinned.episodes().size() < pinned.count()) {
                out.printf("  (the first %d kept with their stacks)%n", pinned.episodes().size());
            }
            pinned(report).stream().limit(top).forEach(p -> {
                out.printf("  %d park(s), %s in all, longest %s: %s%n", p.count(), TraceView.duration(p.totalNanos()),
                        TraceView.duration(p.maxNanos()), Printable.text(String.join(", ", p.threads().subList(0, Math.min(5, p.threads().size())))
                                + (p.threads().size() > 5 ? ", and " + (p.threads().size() - 5) + " more" : "")));
                p.stack().forEach(f -> out.println("      at " + f));
            });
        }
        out.println(restored(report));
        out.flush();
    }

    /** The owners' stacks of the blockers shown, each blocker's most read first. */
    private static void printOwnerStacks(PrintWriter out, ParksReport report, List<String> blockers) {
        List<OwnerStackRow> stacks = ownerStacks(report).stream().filter(o -> blockers.contains(o.blocker())).toList();
        if (stacks.isEmpty()) {
            return;
        }
        out.println();
        out.println("Where the owners held them (the owner's stack read as a wait began, at most one read a millisecond, kept when it"
                + " still owned the lock after the read; " + report.ownerSamplesStale() + " reads found it had let go"
                + (report.ownerReadsDropped() == 0 ? "" : ", " + report.ownerReadsDropped() + " were not made: the reading thread was behind") + "):");
        for (String blocker : blockers) {
            stacks.stream().filter(o -> o.blocker().equals(blocker)).limit(OWNER_STACKS_SHOWN).forEach(o -> {
                out.println("  " + Printable.text(blocker + ": " + o.owner() + ", " + o.reads() + (o.reads() == 1 ? " read:" : " reads:")));
                o.stack().stream().limit(OWNER_FRAMES_SHOWN).forEach(f -> out.println("      at " + Printable.text(f)));
                if (o.stack().size() > OWNER_FRAMES_SHOWN) {
                    out.println("      ... " + (o.stack().size() - OWNER_FRAMES_SHOWN) + " more");
                }
            });
        }
    }

    private static void printHolders(PrintWriter out, List<Holders> holders) {
        if (holders.isEmpty()) {
            return;
        }
        out.println();
        out.println("Who holds up the waits on a blocker with no owner to read (a queue, a condition: no exclusiveOwnerThread), by the"
                + " threads' frames read after the window:");
        for (Holders h : holders) {
            out.println("  " + Printable.text(h.blocker() + ": " + holdersLine(h)));
        }
    }

    /** One blocker's waiters and holders: what their frames show, said so, never an owner. */
    static String holdersLine(Holders h) {
        MainWait wait = h.waiting();
        StringBuilder line = new StringBuilder().append(wait.waiters().size())
                .append(wait.waiters().size() == 1 ? " thread waits" : " threads wait");
        if (wait.waitFrame() != null) {
            line.append(" in ").append(frameText(wait.waitFrame()));
        }
        if (wait.callerFrame() != null && !wait.callerFrame().equals(wait.waitFrame())) {
            line.append(" called from ").append(frameText(wait.callerFrame()));
        }
        if (h.sharedFrame() == null) {
            return line.append("; no thread is inside the code that waits without waiting itself: none to name").toString();
        }
        String when = h.atOnce() ? "; the virtual ones read again together, at one safepoint"
                : h.holders().stream().anyMatch(t -> t.thread().virtual()) ? "; virtual threads are read one at a time, so not necessarily all at once"
                : "";
        line.append("; inside the same ").append(frameText(h.sharedFrame()))
                .append(" and not waiting for it (so likely holding what they wait for").append(when).append("): ")
                .append(h.holders().size()).append(h.holders().size() == 1 ? " thread" : " threads");
        if (!h.holders().isEmpty()) {
            line.append(": ").append(h.holders().stream().limit(HOLDERS_NAMED).map(t -> new ThreadCount(t.thread().name(), t.thread().id(),
                    t.thread().virtual(), 1).label()).collect(Collectors.joining(", ")));
            if (h.holders().size() > HOLDERS_NAMED) {
                line.append(", and ").append(h.holders().size() - HOLDERS_NAMED).append(" more");
            }
        }
        return line.toString();
    }

    /** Whether the probed classes were put back with the bytes they had. */
    static String restored(ParksReport report) {
        long restored = report.classes().stream().filter(ParksReport.ProbedClass::restored).count();
        return "Classes put back: " + restored + " of " + report.classes().size() + " with the bytes they had (SHA-256)"
                + (report.restoreFailure() == null ? "" : "; putting them back failed at " + report.restoreFailure());
    }
}
