package dev.jvmticli.render;

import dev.jvmticli.analysis.OwnableSynchronizers;
import dev.jvmticli.analysis.StackGroups;
import dev.jvmticli.client.Frame;
import dev.jvmticli.client.Hello;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Thread dumps in jstack's text format, so that the thread-dump analyzers people already use can
 * read them: the timestamp and {@code Full thread dump} preamble, a header line and a
 * {@code java.lang.Thread.State} line per thread, {@code \tat} frames, and lock lines under the frame
 * they belong to. Fields jstack prints but JVMTI does not know (os_prio, tid, elapsed) are left out
 * rather than invented. Beyond jstack: names are exact, and a thread that waits for something owned
 * by another thread says which thread ({@code - owned by "name" #id}).
 */
public final class ThreadDumpText {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

    private static final int GROUP_NAMES = 10;

    private static final String NEWLINE = System.lineSeparator();

    /** Said of a thread whose lock facts never settled (see ThreadStack.unsettled), in place of its lock lines. */
    static final String UNSETTLED = "   Lock lines left out: the thread kept moving while they were read";

    private ThreadDumpText() {
    }

    /**
     * The threads shown (of the dump, whose other threads still name owners); with synchronizers
     * (null for none), each thread's "Locked ownable synchronizers" too.
     */
    public static void print(PrintWriter out, StackDump dump, List<ThreadStack> shown, Hello.Jvm jvm,
                             OwnableSynchronizers synchronizers) {
        printPreamble(out, dump, jvm);
        Map<Long, ThreadEntry> byId = byId(dump);
        Map<Frame, String> frameLines = new HashMap<>();
        for (ThreadStack t : shown) {
            printThread(out, t, byId, frameLines);
            if (synchronizers != null) {
                printSynchronizers(out, synchronizers, t.thread().id());
            }
            out.println();
        }
        out.flush();
    }

    /** Threads with identical stacks printed once, headed by how many and which (the first few of many). */
    public static void printGroups(PrintWriter out, StackDump dump, List<ThreadStack> shown, Hello.Jvm jvm) {
        printPreamble(out, dump, jvm);
        for (StackGroups.Group group : StackGroups.of(shown)) {
            String names = group.threads().stream().limit(GROUP_NAMES).map(t -> quote(t.name()) + " #" + t.id()
                    + (t.virtual() ? " virtual" : "")).collect(Collectors.joining(", "));
            if (group.count() > GROUP_NAMES) {
                names += ", and " + (group.count() - GROUP_NAMES) + " more";
            }
            out.println(group.count() + (group.count() == 1 ? " thread: " : " threads: ") + names);
            out.println("   java.lang.Thread.State: " + group.state());
            for (Frame frame : group.frames()) {
                out.println(frameLine(frame));
            }
            out.println();
        }
        out.flush();
    }

    public static void printPreamble(PrintWriter out, StackDump dump, Hello.Jvm jvm) {
        out.println(TIMESTAMP.format(Instant.ofEpochMilli(dump.time()).atZone(ZoneId.systemDefault())));
        String info = jvm.info() == null ? "" : " " + jvm.info();
        out.println("Full thread dump " + jvm.name() + " (" + jvm.version() + info + "):");
        out.println();
    }

    /**
     * One thread: header, state line, frames with their lock lines; built whole and written at once
     * (a large dump has hundreds of thousands of frame lines).
     */
    public static void printThread(PrintWriter out, ThreadStack t, Map<Long, ThreadEntry> byId) {
        printThread(out, t, byId, new HashMap<>());
    }

    /** As above, with the lines of the frames already written: a large dump repeats them by the thousand. */
    private static void printThread(PrintWriter out, ThreadStack t, Map<Long, ThreadEntry> byId, Map<Frame, String> frameLines) {
        ThreadEntry thread = t.thread();
        StringBuilder b = new StringBuilder(256 + 80 * t.frames().size());
        line(b.append(header(thread)));
        line(b.append("   java.lang.Thread.State: ").append(stateDetail(thread)));
        if (t.unsettled()) {
            line(b.append(UNSETTLED));
        }
        if (thread.carrierId() != null) {
            ThreadEntry carrier = byId.get(thread.carrierId());
            line(b.append("   Mounted on carrier ").append(carrier == null ? "" : quote(carrier.name()) + " ").append('#')
                    .append(thread.carrierId()));
        }
        if (thread.carrying() != null) {
            ThreadEntry carried = byId.get(thread.carrying());
            line(b.append("   Carrying virtual thread ").append(carried == null ? "" : quote(carried.name()) + " ").append('#')
                    .append(thread.carrying()));
        }
        List<Frame> frames = t.frames();
        List<LockedMonitor> locked = t.locked();
        for (int depth = 0; depth < frames.size(); depth++) {
            line(b.append(frameLines.computeIfAbsent(frames.get(depth), ThreadDumpText::frameLine)));
            if (depth == 0 && t.waitingFor() != null) {
                appendWait(b, t.waitingFor(), byId);
            }
            for (LockedMonitor monitor : locked) {
                if (monitor.depth() == depth) {
                    line(b.append("\t- locked ").append(describe(monitor.lock())));
                }
            }
        }
        if (frames.isEmpty() && t.waitingFor() != null) {
            appendWait(b, t.waitingFor(), byId);
        }
        for (LockedMonitor monitor : locked) {
            if (monitor.depth() < 0 || monitor.depth() >= frames.size()) {
                line(b.append("\t- locked ").append(describe(monitor.lock())).append(monitor.depth() < 0 ? " by JNI" : ""));
            }
        }
        if (t.truncated()) {
            line(b.append("\t..."));
        }
        out.write(b.toString());
    }

    private static void line(StringBuilder b) {
        b.append(NEWLINE);
    }

    private static void appendWait(StringBuilder b, WaitingFor wait, Map<Long, ThreadEntry> byId) {
        String line = switch (wait.kind()) {
            case "enter" -> "\t- waiting to lock ";
            case "notify" -> "\t- waiting on ";
            default -> "\t- parking to wait for  ";
        };
        line(b.append(line).append(describe(wait.lock())));
        ThreadEntry owner = wait.hasOwner() ? byId.get(wait.ownerId()) : null;
        if (owner != null) {
            line(b.append("\t- owned by ").append(quote(owner.name())).append(" #").append(owner.id()));
        }
    }

    /**
     * jstack's section; "- None" only when the list is complete. A partial one ends with a line no
     * reader takes for a synchronizer: {@code - (others not known: why)}.
     */
    private static void printSynchronizers(PrintWriter out, OwnableSynchronizers synchronizers, long threadId) {
        List<LockRef> owned = synchronizers.of(threadId);
        out.println();
        out.println("   Locked ownable synchronizers:");
        for (LockRef lock : owned) {
            out.println("\t- " + describe(lock));
        }
        if (!synchronizers.complete()) {
            out.println("\t- (" + (owned.isEmpty() ? "not known" : "others not known") + ": " + synchronizers.partialBecause() + ")");
        } else if (owned.isEmpty()) {
            out.println("\t- None");
        }
    }

    public static Map<Long, ThreadEntry> byId(StackDump dump) {
        return dump.threads().stream().collect(Collectors.toMap(t -> t.thread().id(), ThreadStack::thread, (a, b) -> a));
    }

    /** {@code <0x...> (a pkg.Class)} */
    public static String describe(LockRef lock) {
        return lock.address() + " (a " + lock.className() + ")";
    }

    public static String quote(String name) {
        return "\"" + name + "\"";
    }

    static String header(ThreadEntry t) {
        StringBuilder line = new StringBuilder();
        line.append(quote(t.name())).append(" #").append(t.id());
        if (t.virtual()) {
            line.append(t.pinned() ? " virtual pinned" : " virtual");
        } else if (t.daemon()) {
            line.append(" daemon");
        }
        line.append(" prio=").append(t.priority());
        if (t.cpuNanos() >= 0) {
            line.append(String.format(Locale.ROOT, " cpu=%.2fms", t.cpuNanos() / 1e6));
        }
        if (t.nid() > 0) {
            line.append(" nid=0x").append(Long.toHexString(t.nid()));
        }
        line.append(' ').append(t.osState() != null ? t.osState() : stateText(t));
        if (t.agent()) {
            line.append(" (jvmti-cli agent)");
        }
        return line.toString();
    }

    /** jstack's words for the OS thread's state, guessed from the Java state where HotSpot's record is not known. */
    static String stateText(ThreadEntry t) {
        return switch (t.state()) {
            case "RUNNABLE" -> "runnable";
            case "BLOCKED" -> "waiting for monitor entry";
            case "WAITING", "TIMED_WAITING" -> t.hasFlag("in_object_wait") ? "in Object.wait()" : "waiting on condition";
            default -> t.state().toLowerCase(Locale.ROOT);
        };
    }

    static String stateDetail(ThreadEntry t) {
        String detail = switch (t.state()) {
            case "BLOCKED" -> "on object monitor";
            case "WAITING", "TIMED_WAITING" -> t.hasFlag("in_object_wait") ? "on object monitor"
                    : t.hasFlag("parked") ? "parking"
                    : t.hasFlag("sleeping") ? "sleeping" : null;
            default -> null;
        };
        return detail == null ? t.state() : t.state() + " (" + detail + ")";
    }

    static String frameLine(Frame f) {
        return appendFrame(new StringBuilder(80), f).toString();
    }

    /** {@code \tat pkg.Class.method(File.java:12)}, as jstack writes it. */
    private static StringBuilder appendFrame(StringBuilder b, Frame f) {
        b.append("\tat ").append(f.className()).append('.').append(f.method()).append('(');
        if (f.nativeMethod()) {
            b.append("Native Method");
        } else if (f.file() == null) {
            b.append("Unknown Source");
        } else if (f.line() >= 0) {
            b.append(f.file()).append(':').append(f.line());
        } else {
            b.append(f.file());
        }
        return b.append(')');
    }
}
