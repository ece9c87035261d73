package dev.jvmticli.render;

import dev.jvmticli.analysis.CpuTop;
import dev.jvmticli.analysis.LockTable;
import dev.jvmticli.analysis.MainWait;
import dev.jvmticli.analysis.Profile;
import dev.jvmticli.analysis.ProfileSplit;
import dev.jvmticli.analysis.StackGroups;
import dev.jvmticli.client.Frame;
import dev.jvmticli.client.Hello;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** summary.md of a dump: what a person reads first. */
public final class DumpSummary {
    private static final int TOP = 5;
    private static final int STACKS_OF_BUSIEST = 3;
    private static final int GROUP_NAMES = 3;

    /** A thread that used less CPU than the 0.1 % the table prints is idle, not busy. */
    private static final double BUSY_PERCENT = 0.05;

    /**
     * What one round found.
     *
     * @param insideAtOnce where the threads inside the main wait's code ({@link MainWait#inside}) are
     *                     virtual: those inside it (or a deeper frame of it) at one instant, the
     *                     virtual ones read again together ({@link MainWait#insideOf}), the platform
     *                     ones as the round read them; null when not read so
     */
    public record Round(int number, StackDump stacks, List<List<ThreadStack>> deadlocks, List<CpuTop.Entry<ThreadEntry>> busiest,
                        long busiestOverMillis, MainWait.Shared insideAtOnce) {
    }

    private DumpSummary() {
    }

    /**
     * summary.md: what most threads wait for, then the traced methods (traced; null without --trace),
     * the pauses and the locks waited on over the dump (waits), then the rest.
     */
    public static void print(PrintWriter out, long pid, Hello hello, long uptimeMillis, List<Round> rounds, TraceSummary.Traced traced,
                             WaitsSummary.Waits waits) {
        Round last = rounds.get(rounds.size() - 1);
        out.println(mainWait(last));
        out.println();
        if (traced != null) {
            TraceSummary.print(out, traced);
        }
        WaitsSummary.print(out, waits);
        out.println("# jvmti-cli dump of JVM " + pid);
        out.println();
        out.println(Printable.text("- JVM: " + hello.jvm().name() + " " + hello.jvm().version() + " (" + hello.jvm().vendor() + ")"));
        out.println("- Uptime at the start: " + Duration.ofMillis(Math.max(0, uptimeMillis)).toString().substring(2).toLowerCase(Locale.ROOT));
        out.println("- Rounds: " + rounds.size() + "; lock facts from " + last.stacks().lockSource()
                + " (agent " + hello.phase() + " mode)");
        out.println();

        out.println("## Deadlocks");
        boolean anyDeadlock = false;
        for (Round round : rounds) {
            for (List<ThreadStack> cycle : round.deadlocks()) {
                anyDeadlock = true;
                out.println("- round " + round.number() + ": " + cycle.stream()
                        .map(t -> ThreadDumpText.quote(t.thread().name()) + " #" + t.thread().id())
                        .collect(Collectors.joining(" -> ")) + " -> back to the first");
            }
        }
        if (!anyDeadlock) {
            out.println("None found in any round.");
        }
        out.println();

        printVirtualThreads(out, last);

        out.println("## Locks most threads wait on (last round, platform and virtual threads)");
        List<LockTable.Lock> all = LockTable.of(last.stacks());
        List<LockTable.Lock> locks = all.stream().filter(l -> !l.idle() && l.waiting() > 0).limit(TOP).toList();
        long idle = all.stream().filter(LockTable.Lock::idle).mapToLong(LockTable.Lock::waiting).sum();
        if (locks.isEmpty()) {
            out.println("No thread waits to enter a monitor, to acquire a synchronizer, or on a lock or condition, but idly.");
        } else {
            out.println("| lock | owner | waiting to enter | waiting in all |");
            out.println("|---|---|---|---|");
            for (LockTable.Lock lock : locks) {
                out.println("| " + code(ThreadDumpText.describe(lock.lock())) + " | " + ownerCell(lock) + " | " + lock.contention() + " | "
                        + lock.waiting() + " |");
            }
        }
        if (idle > 0) {
            out.println();
            out.println(idle + " more threads wait idly (pool workers waiting for work, carriers in ForkJoinPool.awaitWork, the Finalizer): "
                    + "monitors.txt lists them, below.");
        }
        out.println();

        // the last round is measured over a wait of at most a second: the round before it, when there is one,
        // over the whole --interval
        Round measured = rounds.size() > 1 ? rounds.get(rounds.size() - 2) : last;
        out.println("## Busiest threads " + (measured == last
                ? "(round " + last.number() + ", over the " + last.busiestOverMillis() + " ms after it: the last round is measured over"
                        + " a wait of at most a second; with --count 2 or more, over --interval)"
                : "(round " + measured.number() + " to round " + last.number() + ", over " + measured.busiestOverMillis() + " ms)"));
        out.println("| thread | state | CPU % |");
        out.println("|---|---|---|");
        List<CpuTop.Entry<ThreadEntry>> used = measured.busiest().stream()
                .filter(e -> !e.thread().agent() && e.cpuPercent() >= BUSY_PERCENT).toList();
        Set<Long> carriers = measured.stacks().threads().stream().filter(DumpSummary::isCarrier).map(t -> t.thread().id())
                .collect(Collectors.toSet());
        for (CpuTop.Entry<ThreadEntry> entry : used) {
            String carrier = carriers.contains(entry.thread().id()) ? " (a carrier: its CPU is that of the virtual threads it ran)" : "";
            out.println("| " + cell(entry.thread()) + carrier + " | " + entry.thread().state() + " | "
                    + String.format(Locale.ROOT, "%.1f", entry.cpuPercent()) + " |");
        }
        if (used.isEmpty()) {
            out.println("| (no thread used 0.1 % CPU or more over the interval) | | |");
        }
        List<ThreadEntry> own = last.stacks().threads().stream().map(ThreadStack::thread).filter(ThreadEntry::agent).toList();
        if (own.size() == 1) {
            out.println("\nThe agent's own thread, " + cell(own.get(0)) + ", busy with this dump, is left out of this table and of the groups below.");
        } else if (own.size() > 1) {
            // its sessions' helpers too (contention's look-ups of a monitor's owner)
            out.println("\nThe agent's own threads, " + own.stream().map(DumpSummary::cell).collect(Collectors.joining(", "))
                    + ", busy with this dump, are left out of this table and of the groups below.");
        }
        out.println();
        printBusiestStacks(out, measured);

        out.println("## Largest groups of threads with identical stacks (last round)");
        out.println("| threads | state | top frame | first frame that tells the group apart | names |");
        out.println("|---|---|---|---|---|");
        List<StackGroups.Group> groups = StackGroups.of(last.stacks().threads().stream().filter(t -> !t.thread().agent()).toList());
        for (StackGroups.Group group : groups.stream().limit(TOP).toList()) {
            List<Frame> frames = group.frames();
            int distinct = StackGroups.distinctDepth(group, groups);
            String top = frames.isEmpty() ? "(no Java frames)" : code(frameText(frames.get(0)));
            String apart = frames.isEmpty() ? "-" : distinct < 0 ? "none: another group has the same methods (state or lines differ)"
                    : distinct == 0 ? "the top frame" : code(frameText(frames.get(distinct))) + " (frame " + distinct + ")";
            out.println("| " + group.count() + " | " + group.state() + " | " + top + " | " + apart + " | " + names(group.threads()) + " |");
        }
        out.println();

        out.println("## Threads BLOCKED in every round");
        Map<Long, ThreadEntry> stuck = blockedThroughout(rounds);
        if (rounds.size() < 2) {
            out.println("Needs two rounds or more (--count).");
        } else if (stuck.isEmpty()) {
            out.println("None.");
        } else {
            stuck.values().forEach(t -> out.println("- " + cell(t)));
        }
        out.flush();
    }

    /** A virtual threads' carrier: a worker of the JDK's scheduler, in the group CarrierThreads, running ForkJoinWorkerThread.run. */
    private static boolean isCarrier(ThreadStack t) {
        return "CarrierThreads".equals(t.thread().group()) && t.frames().stream()
                .anyMatch(f -> f.className().equals("java.util.concurrent.ForkJoinWorkerThread") && f.method().equals("run"));
    }

    /**
     * The first line of summary.md: what most threads wait for, idle waits aside, with its owner or,
     * for a lock nobody owns, the threads inside the same caller that do not wait for it.
     */
    static String mainWait(Round last) {
        Optional<MainWait> found = MainWait.of(last.stacks());
        if (found.isEmpty()) {
            long alone = LockTable.of(last.stacks()).stream().filter(l -> !l.idle() && l.waiting() > 0).count();
            return alone == 0
                    ? "**Most threads wait for:** nothing: no thread waits for a monitor, a synchronizer, a lock or a condition but idly"
                            + " (round " + last.number() + ")."
                    : "**Most threads wait for:** nothing in common: no two threads wait on the same lock but idly, and none waits for"
                            + " one that another thread owns; " + alone + (alone == 1 ? " thread waits" : " threads wait")
                            + " alone on a lock or condition nobody owns (its own events, a back-off: monitors.txt) (round " + last.number() + ").";
        }
        MainWait wait = found.get();
        long virtual = wait.waiters().stream().filter(t -> t.thread().virtual()).count();
        StringBuilder line = new StringBuilder("**Most threads wait for:** ");
        line.append(wait.waiters().size()).append(wait.waiters().size() == 1 ? " thread" : " threads")
                .append(virtual > 0 ? " (" + virtual + " virtual)" : "")
                .append(" wait for ").append(code(ThreadDumpText.describe(wait.lock().lock())));
        if (wait.waitFrame() != null) {
            line.append(" in ").append(code(frameText(wait.waitFrame())));
        }
        if (wait.callerFrame() != null && !wait.callerFrame().equals(wait.waitFrame())) {
            line.append(" called from ").append(code(frameText(wait.callerFrame())));
        }
        if (wait.owner() != null) {
            line.append("; held by ").append(cell(wait.owner().thread())).append(where(wait.owner()));
        } else if (wait.lock().owner() != null) {
            line.append("; held by ").append(cell(wait.lock().owner()));
        } else if (wait.sharedFrame() != null) {
            List<ThreadStack> inside = last.insideAtOnce() != null ? last.insideAtOnce().inside() : wait.inside();
            Frame shared = last.insideAtOnce() != null ? last.insideAtOnce().frame() : wait.sharedFrame();
            // each virtual thread is read at its own moment: unless read again together, threads that held one after another can all be listed
            String when = last.insideAtOnce() != null ? "; the virtual ones read again together, at one safepoint"
                    : wait.inside().stream().anyMatch(t -> t.thread().virtual()) ? "; virtual threads are read one at a time, so not necessarily all at once"
                    : "";
            line.append("; ").append(noOwner(wait.lock())).append(". Inside the same ").append(code(frameText(shared)))
                    .append(" and not waiting for it (so likely holding what they wait for").append(when).append("): ")
                    .append(inside.size()).append(inside.size() == 1 ? " thread" : " threads").append(inside.isEmpty() ? "" : ": ");
            Map<String, List<ThreadStack>> byPlace = new LinkedHashMap<>();
            inside.forEach(t -> byPlace.computeIfAbsent(where(t), k -> new ArrayList<>()).add(t));
            line.append(byPlace.entrySet().stream().map(e -> e.getValue().size() + e.getKey() + " ("
                    + names(e.getValue().stream().map(ThreadStack::thread).toList()) + ")").collect(Collectors.joining("; ")));
        } else {
            line.append("; ").append(noOwner(wait.lock())).append(", and no thread is inside the code that waits without waiting itself");
        }
        return line.append(" (round ").append(last.number()).append(").").toString();
    }

    /** What is known of the owner of a lock that names none (see ownerCell). */
    private static String noOwner(LockTable.Lock lock) {
        return lock.ownerUnknown() ? "its owner is not known" : !lock.ownersSeen().isEmpty() ? "it changed hands while the threads were read"
                : "nobody owns it";
    }

    /** Where a thread is: its state and where it is as MainWait.whereIs says. */
    private static String where(ThreadStack t) {
        List<Frame> where = MainWait.whereIs(t);
        if (where.isEmpty()) {
            return " " + t.thread().state() + " (no Java frames)";
        }
        return " " + t.thread().state() + " in " + code(frameText(where.get(0)))
                + (where.size() > 1 ? " under " + code(frameText(where.get(1))) : "");
    }

    /** Counts of the virtual threads of the last round, when there are any. */
    private static void printVirtualThreads(PrintWriter out, Round last) {
        List<ThreadEntry> virtual = last.stacks().threads().stream().map(ThreadStack::thread).filter(ThreadEntry::virtual).toList();
        if (virtual.isEmpty()) {
            return;
        }
        Map<String, Long> byState = virtual.stream().collect(Collectors.groupingBy(ThreadEntry::state, TreeMap::new, Collectors.counting()));
        out.println("## Virtual threads (last round)");
        out.println(virtual.size() + " virtual threads: " + byState.entrySet().stream().map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining(", ")) + "; " + virtual.stream().filter(t -> t.carrierId() != null).count() + " mounted, "
                + virtual.stream().filter(ThreadEntry::pinned).count() + " pinned. Their stacks, grouped: round-"
                + String.format(Locale.ROOT, "%03d", last.number()) + "/virtual-stacks.txt; every one in stacks.json.");
        out.println();
    }

    /** The stacks (at the round measured) of the busiest threads that were busy (the agent's own left out), as stacks prints them. */
    private static void printBusiestStacks(PrintWriter out, Round measured) {
        Map<Long, ThreadStack> stacks = measured.stacks().threads().stream()
                .collect(Collectors.toMap(t -> t.thread().id(), t -> t, (a, b) -> a));
        List<ThreadStack> busiest = measured.busiest().stream().filter(e -> e.cpuPercent() >= BUSY_PERCENT && !e.thread().agent())
                .map(e -> stacks.get(e.thread().id())).filter(t -> t != null).limit(STACKS_OF_BUSIEST).toList();
        out.println("## Stacks of the busiest Java threads (round " + measured.number() + ")");
        if (busiest.isEmpty()) {
            out.println("No Java thread used 0.1 % CPU or more over the interval.");
        }
        for (ThreadStack thread : busiest) {
            out.println("- " + cell(thread.thread()) + ":");
            if (thread.frames().isEmpty()) {
                out.println("  (no Java frames)");
                continue;
            }
            out.println("```");
            ThreadDumpText.printFrames(out, thread);
            out.println("```");
        }
        out.println();
    }

    /**
     * The hottest methods of the dump's CPU profile, and its busiest threads, Java and the JVM's own;
     * the tool's own work (this dump's requests) left out and counted.
     */
    public static void printHottest(PrintWriter out, ProfileSplit split, int top) {
        Profile profile = split.target();
        out.println();
        out.println("## Hottest methods (CPU profile, " + profile.samples() + " samples; profile/flame.html)");
        out.println(ProfileView.ownWork(split) + " In profile/flame.html and profile/collapsed.txt they stand under `"
                + ProfileSplit.OWN_WORK_FRAME + "`.");
        out.println();
        if (profile.samples() == 0) {
            out.println("No samples: no thread used CPU while the profile ran.");
            out.flush();
            return;
        }
        out.println("| self % | total % | method | kind |");
        out.println("|---|---|---|---|");
        for (Profile.Method method : profile.methods().stream().limit(top).toList()) {
            out.println("| " + Sizes.percent(method.self(), profile.samples()) + " | " + Sizes.percent(method.total(), profile.samples())
                    + " | " + code(Printable.text(method.name())) + " | " + String.join(", ", method.kinds()) + " |");
        }
        out.println();
        out.println("## Busiest threads in the CPU profile (Java and the JVM's own)");
        out.println("| thread | tid | samples % |");
        out.println("|---|---|---|");
        for (Profile.ThreadTotal thread : profile.threads().stream().limit(top).toList()) {
            out.println("| " + code(Printable.text(thread.name())) + " | " + (thread.tid() < 0 ? "-" : thread.tid()) + " | "
                    + Sizes.percent(thread.samples(), profile.samples()) + " |");
        }
        out.flush();
    }

    static Map<Long, ThreadEntry> blockedThroughout(List<Round> rounds) {
        Map<Long, ThreadEntry> candidates = new TreeMap<>();
        rounds.get(0).stacks().threads().stream()
                .filter(t -> t.thread().state().equals("BLOCKED"))
                .forEach(t -> candidates.put(t.thread().id(), t.thread()));
        for (Round round : rounds.subList(1, rounds.size())) {
            Set<Long> blocked = round.stacks().threads().stream()
                    .filter(t -> t.thread().state().equals("BLOCKED"))
                    .map(t -> t.thread().id())
                    .collect(Collectors.toSet());
            candidates.keySet().retainAll(blocked);
        }
        return candidates;
    }

    private static String frameText(Frame frame) {
        return ThreadDumpText.frameLine(frame).substring("\tat ".length());
    }

    /** The owner, or what is known of it (see MonitorsText's by-lock view). */
    private static String ownerCell(LockTable.Lock lock) {
        if (lock.owner() != null) {
            return cell(lock.owner());
        }
        if (lock.ownersSeen().isEmpty()) {
            return lock.ownerUnknown() ? "not known" : "none";
        }
        int others = lock.ownersSeen().size() - 1;
        return "changed hands while read: " + cell(lock.ownersSeen().get(0).thread()) + (others > 0 ? " and " + others + " more" : "");
    }

    /** A group's first threads, and how many more. */
    private static String names(List<ThreadEntry> threads) {
        String shown = threads.stream().limit(GROUP_NAMES).map(DumpSummary::cell).collect(Collectors.joining(", "));
        return threads.size() > GROUP_NAMES ? shown + " and " + (threads.size() - GROUP_NAMES) + " more" : shown;
    }

    private static String cell(ThreadEntry t) {
        return code(Printable.text(t.name())) + " #" + t.id();
    }

    /**
     * Printable text as a markdown code span that can stand in a table cell: a {@code |} escaped as
     * {@code \|} (its backslash reads one way: a backslash of the text is already {@code \\}), a
     * backquote, which would end the span, as {@code '}.
     */
    static String code(String printable) {
        return "`" + printable.replace("`", "'").replace("|", "\\|") + "`";
    }
}
