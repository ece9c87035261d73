package dev.jvmticli.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks each thread of a jstack-format dump (the text of {@code jstack -l} or of
 * {@code jvmti-cli stacks -l}) against itself: its {@code java.lang.Thread.State} line, its top
 * frame and its lock lines must describe one moment. A thread is inconsistent when
 * <ul>
 *   <li>it is BLOCKED without a {@code waiting to lock} line (in {@code Object.wait}, jstack's
 *       {@code waiting to re-lock in wait()} or {@code waiting on} count as one), at {@code Unsafe.park},
 *       or names itself as the owner of the monitor it waits for;</li>
 *   <li>it is {@code (parking)} without {@code Unsafe.park} on top, or {@code (on object monitor)}
 *       waiting without {@code Object.wait} on top, or {@code (sleeping)} without {@code Thread.sleep};</li>
 *   <li>a lock line does not fit the state ({@code parking to wait for} on a thread that does not park,
 *       {@code waiting on} on one that is not in {@code Object.wait}, {@code waiting to lock} on one
 *       that is not BLOCKED, any such line on a RUNNABLE thread), or stands under a frame other than the top;</li>
 *   <li>it waits to lock a {@code ConditionObject}, which is never a monitor to enter;</li>
 *   <li>a virtual thread marked {@code pinned} is not mounted ({@code Mounted on carrier}), is RUNNABLE,
 *       or has a frame where it yields its carrier on top ({@code VirtualThread.yieldContinuation},
 *       {@code Continuation.yield}): it is on its way off its carrier, not pinned to it;</li>
 *   <li>a carrier said to carry a virtual thread ({@code Carrying ...}) has no {@code Continuation.run}
 *       on its stack, or waits for work in {@code ForkJoinPool.awaitWork}; one with
 *       {@code Continuation.run} on its stack is not said to carry one.</li>
 * </ul>
 * A parked thread without a {@code parking to wait for} line, and a monitor waiter without a
 * {@code waiting on} line, are not contradictions (jstack leaves the line out when the blocker is
 * null) and are reported apart by {@link #missingBlockers} and {@link #missingWaitedMonitors} (a
 * {@code waiting on <no object reference available>} line counts as none). A thread that says its lock lines are
 * left out because it never settled (jvmti-cli's {@link #UNSETTLED} line) is counted by
 * {@link #unsettledThreads}; its state and frames are still checked against each other. Blocks without a state line (VM
 * threads, the deadlock report's thread lists) are not threads to check.
 */
public final class DumpConsistency {
    /** How jvmti-cli's text begins the line of a thread whose lock facts never settled. */
    public static final String UNSETTLED = "   Lock lines left out:";

    private static final Pattern STATE = Pattern.compile("^\\s+java\\.lang\\.Thread\\.State: (\\S+)(?: \\((.+)\\))?\\s*$");

    private static final Pattern FRAME = Pattern.compile("^\\s+at (\\S+?)\\(.*$");

    private static final Pattern LOCK_LINE = Pattern.compile("^\\s+- (waiting to lock|waiting to re-lock in wait\\(\\)|waiting on|parking to wait for|locked|eliminated|owned by)\\s+(.*)$");

    private static final Pattern OWNER_ID = Pattern.compile("#(\\d+)\\s*$");

    private static final Pattern HEADER_ID = Pattern.compile("^\".*\" #(\\d+)[ \\t]");

    /** A virtual thread's header: jvmti-cli's {@code "name" #id virtual [pinned] ...}. */
    private static final Pattern VIRTUAL_HEADER = Pattern.compile("^\".*\" #\\d+ virtual( pinned)?( .*)?$");

    private DumpConsistency() {
    }

    /** One description per thread whose state, top frame and lock lines disagree. */
    public static List<String> inconsistentThreads(String jstackFormatText) {
        List<String> found = new ArrayList<>();
        for (ThreadBlock t : threads(jstackFormatText)) {
            List<String> reasons = t.contradictions();
            if (!reasons.isEmpty()) {
                found.add(t.summary() + ": " + String.join("; ", reasons));
            }
        }
        return found;
    }

    /**
     * One description per thread that parks without a {@code parking to wait for} line (and is
     * not otherwise inconsistent).
     */
    public static List<String> missingBlockers(String jstackFormatText) {
        return missing(jstackFormatText, t -> "parking".equals(t.detail) && t.waitLine("parking to wait for") == null,
                "no parking to wait for line");
    }

    /**
     * One description per thread that waits in {@code Object.wait} without a {@code waiting on}
     * line (and is not otherwise inconsistent).
     */
    public static List<String> missingWaitedMonitors(String jstackFormatText) {
        return missing(jstackFormatText, t -> t.inObjectWait() && (t.waitLine("waiting on") == null || t.waitLine("waiting on").unnamed()),
                "no waiting on line");
    }

    private static List<String> missing(String text, Predicate<ThreadBlock> lacks, String what) {
        return threads(text).stream().filter(t -> !t.unsettled && t.contradictions().isEmpty() && lacks.test(t))
                .map(t -> t.summary() + ": " + what).toList();
    }

    /** One description per thread marked as never settled. */
    public static List<String> unsettledThreads(String jstackFormatText) {
        return threads(jstackFormatText).stream().filter(t -> t.unsettled).map(ThreadBlock::summary).toList();
    }

    /** How many threads the text has (blocks with a state line). */
    public static int threadCount(String jstackFormatText) {
        return threads(jstackFormatText).size();
    }

    private static List<ThreadBlock> threads(String text) {
        List<ThreadBlock> threads = new ArrayList<>();
        ThreadBlock current = null;
        for (String line : text.split("\\R")) {
            if (line.startsWith("\"")) {
                current = new ThreadBlock(line);
                threads.add(current);
                continue;
            }
            if (current == null) {
                continue;
            }
            if (line.isBlank()) {
                current = null;
                continue;
            }
            current.read(line);
        }
        threads.removeIf(t -> t.state == null);
        return threads;
    }

    private record LockLine(String kind, String rest, int underFrame) {
        boolean conditionObject() {
            return rest.contains("ConditionObject");
        }

        /** jstack's line for a monitor it cannot name. */
        boolean unnamed() {
            return rest.equals("<no object reference available>");
        }
    }

    private static final class ThreadBlock {
        final String header;
        String state;
        String detail;
        boolean unsettled;
        final boolean virtual;
        final boolean pinned;
        boolean mounted;
        boolean carrying;
        final List<String> frames = new ArrayList<>();
        final List<LockLine> locks = new ArrayList<>();

        ThreadBlock(String header) {
            this.header = header;
            Matcher m = VIRTUAL_HEADER.matcher(header);
            this.virtual = m.matches();
            this.pinned = virtual && m.group(1) != null;
        }

        void read(String line) {
            Matcher m;
            if (state == null && (m = STATE.matcher(line)).matches()) {
                state = m.group(1);
                detail = m.group(2);
            } else if ((m = FRAME.matcher(line)).matches()) {
                frames.add(m.group(1));
            } else if ((m = LOCK_LINE.matcher(line)).matches()) {
                locks.add(new LockLine(m.group(1), m.group(2), frames.size() - 1));
            } else if (line.startsWith(UNSETTLED)) {
                unsettled = true;
            } else if (line.startsWith("   Mounted on carrier ")) {
                mounted = true;
            } else if (line.startsWith("   Carrying ")) {
                carrying = true;
            }
        }

        String summary() {
            String name = header.substring(0, header.indexOf('"', 1) + 1);
            return name + " " + state + (detail == null ? "" : " (" + detail + ")")
                    + (frames.isEmpty() ? "" : " at " + frames.get(0));
        }

        LockLine waitLine(String kind) {
            return locks.stream().filter(l -> l.kind.equals(kind)).findFirst().orElse(null);
        }

        boolean topIs(String... methods) {
            if (frames.isEmpty()) {
                return false;
            }
            for (String method : methods) {
                if (frames.get(0).equals(method)) {
                    return true;
                }
            }
            return false;
        }

        boolean inWaitFrame() {
            return topIs("java.lang.Object.wait", "java.lang.Object.wait0");
        }

        boolean atPark() {
            return topIs("jdk.internal.misc.Unsafe.park", "sun.misc.Unsafe.park");
        }

        boolean inObjectWait() {
            return ("WAITING".equals(state) || "TIMED_WAITING".equals(state)) && "on object monitor".equals(detail);
        }

        List<String> contradictions() {
            List<String> reasons = new ArrayList<>();
            LockLine enter = waitLine("waiting to lock") != null ? waitLine("waiting to lock") : waitLine("waiting to re-lock in wait()");
            LockLine waitOn = waitLine("waiting on");
            LockLine park = waitLine("parking to wait for");
            if ("BLOCKED".equals(state) && enter == null && waitOn != null && inWaitFrame()) {
                enter = waitOn; /* jstack's words, in some versions, for taking the monitor again after wait() */
                waitOn = null;
            }
            for (LockLine l : locks) {
                boolean waitKind = !l.kind.equals("locked") && !l.kind.equals("eliminated") && !l.kind.equals("owned by");
                if (waitKind && l.underFrame != 0) {
                    reasons.add("'" + l.kind + "' under frame " + l.underFrame + ", not the top");
                }
            }
            if (enter != null && enter.conditionObject()) {
                reasons.add("waits to lock a ConditionObject");
            }
            if ("BLOCKED".equals(state)) {
                if (enter == null && !unsettled) {
                    reasons.add("BLOCKED without waiting to lock");
                }
                if (atPark()) {
                    reasons.add("BLOCKED at Unsafe.park");
                }
                if (waitOn != null || park != null) {
                    reasons.add("BLOCKED with a '" + (waitOn != null ? waitOn : park).kind + "' line");
                }
                Matcher owner = OWNER_ID.matcher(locks.stream().filter(l -> l.kind.equals("owned by")).map(LockLine::rest).findFirst().orElse(""));
                Matcher self = HEADER_ID.matcher(header);
                if (owner.find() && self.find() && owner.group(1).equals(self.group(1))) {
                    reasons.add("waits for a monitor it owns itself");
                }
            } else if (enter != null) {
                reasons.add(state + " with a 'waiting to lock' line");
            }
            if ("parking".equals(detail)) {
                if (!atPark() && !virtualParked()) {
                    reasons.add("parking without Unsafe.park on top");
                }
            } else if (park != null) {
                reasons.add(state + (detail == null ? "" : " (" + detail + ")") + " with a 'parking to wait for' line");
            }
            if (inObjectWait()) {
                if (!inWaitFrame()) {
                    reasons.add("waiting on object monitor without Object.wait on top");
                }
            } else if (waitOn != null) {
                reasons.add(state + (detail == null ? "" : " (" + detail + ")") + " with a 'waiting on' line");
            }
            if ("sleeping".equals(detail) && !(frames.isEmpty() || frames.get(0).startsWith("java.lang.Thread.sleep"))) {
                reasons.add("sleeping without Thread.sleep on top");
            }
            if (pinned) {
                if (!mounted) {
                    reasons.add("pinned but not mounted");
                }
                if ("RUNNABLE".equals(state)) {
                    reasons.add("pinned while RUNNABLE");
                }
                if (topIs("java.lang.VirtualThread.yieldContinuation", "jdk.internal.vm.Continuation.yield", "jdk.internal.vm.Continuation.yield0")) {
                    reasons.add("pinned while yielding its carrier");
                }
            }
            if (!virtual) {
                boolean continuation = frames.contains("jdk.internal.vm.Continuation.run");
                if (carrying && !continuation) {
                    reasons.add("carrying a virtual thread without Continuation.run on its stack");
                }
                if (carrying && frames.contains("java.util.concurrent.ForkJoinPool.awaitWork")) {
                    reasons.add("carrying a virtual thread while waiting for work in ForkJoinPool.awaitWork");
                }
                if (continuation && !carrying) {
                    reasons.add("Continuation.run on its stack but carrying nothing");
                }
            }
            return reasons;
        }

        /** An unmounted virtual thread parks in its continuation, not in Unsafe.park. */
        private boolean virtualParked() {
            return header.contains(" virtual") && !frames.isEmpty()
                    && (frames.get(0).startsWith("jdk.internal.vm.Continuation.") || frames.get(0).startsWith("java.lang.VirtualThread."));
        }
    }
}
