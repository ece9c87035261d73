package dev.jvmticli.render;

import dev.jvmticli.analysis.LockTable;
import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The {@code monitors} views: by thread (what each owns and waits for) and by lock. */
public final class MonitorsText {
    private static final int NAMES_SHOWN = 10;

    private MonitorsText() {
    }

    public static void printByThread(PrintWriter out, StackDump dump) {
        Map<Long, ThreadStack> byId = dump.threads().stream().collect(Collectors.toMap(t -> t.thread().id(), t -> t, (a, b) -> a));
        boolean any = false;
        for (ThreadStack t : dump.threads()) {
            if (t.locked().isEmpty() && t.waitingFor() == null && !t.waitUnnamed()) {
                continue;
            }
            any = true;
            out.println(name(t.thread()) + " " + ThreadDumpText.stateDetail(t.thread()));
            Map<LockRef, List<LockedMonitor>> entries = new LinkedHashMap<>();
            t.locked().forEach(m -> entries.computeIfAbsent(m.lock(), k -> new java.util.ArrayList<>()).add(m));
            entries.forEach((lock, monitors) -> {
                String times = monitors.size() == 1 ? "" : " " + monitors.size() + " times (recursive)";
                out.println((t.waitUnnamed() ? "  entered " : "  owns ") + ThreadDumpText.describe(lock) + times
                        + (t.waitUnnamed() ? " at:" : ", entered at:"));
                for (LockedMonitor m : monitors) {
                    out.println("      frame " + m.depth() + ": " + frame(t, m.depth()));
                }
            });
            if (t.waitingFor() != null) {
                out.println("  " + waitText(t.waitingFor(), byId));
            } else if (t.waitUnnamed()) {
                out.println((t.thread().state().equals("BLOCKED") ? "  entering again, after Object.wait," : "  waiting in Object.wait on")
                        + " a monitor the JVM does not name; it let go of that one, which may be one of those above, and owns the others");
            }
        }
        if (!any) {
            out.println("No thread owns or waits for a monitor or synchronizer.");
        }
        out.flush();
    }

    public static void printByLock(PrintWriter out, List<LockTable.Lock> locks) {
        if (locks.isEmpty()) {
            out.println("No monitor or synchronizer is owned or waited for.");
        }
        for (LockTable.Lock lock : locks) {
            out.println(ThreadDumpText.describe(lock.lock()));
            out.println("  owner: " + owner(lock));
            out.println("  waiting to enter (" + lock.entering().size() + ")" + names(lock.entering()));
            if (!lock.releaseWaiters().isEmpty()) {
                out.println("  waiting to acquire what nobody owns (" + lock.releaseWaiters().size() + ")" + names(lock.releaseWaiters()));
            }
            out.println("  waiting to be notified or signalled (" + lock.notifyWaiters().size() + ")" + names(lock.notifyWaiters()));
            if (!lock.parked().isEmpty()) {
                out.println("  parked on it (" + lock.parked().size() + ")" + names(lock.parked()));
            }
            if (lock.idle()) {
                out.println("  an idle wait: its threads wait for work (a pool's workers, the Finalizer), not for another thread");
            }
        }
        out.flush();
    }

    /** The owner, or what is known of it: it changed hands while the threads were read, or is not known. */
    private static String owner(LockTable.Lock lock) {
        if (lock.owner() != null) {
            return name(lock.owner());
        }
        if (lock.ownersSeen().isEmpty()) {
            return lock.ownerUnknown() ? "not known" : "none";
        }
        String seen = lock.ownersSeen().stream().limit(NAMES_SHOWN).map(s -> name(s.thread()) + " (" + s.times() + ")")
                .collect(Collectors.joining(", "));
        int more = lock.ownersSeen().size() - NAMES_SHOWN;
        return "changed hands while the threads were read; seen owning it, by how many threads: " + seen
                + (more > 0 ? ", and " + more + " more" : "");
    }

    /**
     * What the thread waits for, and its owner as the thread's facts name it; each thread's facts are
     * of its own moment, so where the owner's show it waiting to enter the same lock, that is said.
     */
    static String waitText(WaitingFor wait, Map<Long, ThreadStack> byId) {
        String what = switch (wait.kind()) {
            case "enter" -> "waiting to lock ";
            case "notify" -> "waiting in Object.wait on ";
            case "signal" -> "waiting in Condition.await on ";
            case "acquire" -> wait.shared() == null ? "parked acquiring (mode not known) "
                    : wait.shared() ? "parked acquiring shared " : "parked acquiring ";
            default -> "parked on ";
        };
        ThreadStack owner = wait.hasOwner() ? byId.get(wait.ownerId()) : null;
        WaitingFor ownersWait = owner == null ? null : owner.waitingFor();
        boolean ownerWaitsToo = ownersWait != null && ownersWait.contends() && ownersWait.lock().equals(wait.lock());
        String ownerText = owner != null ? ", owned by " + name(owner.thread())
                + (ownerWaitsToo ? " (whose own facts, of another moment, show it waiting for it too)" : "")
                : wait.hasOwner() ? ", owned by thread #" + wait.ownerId()
                : wait.ownerUnknown() ? ", owner not known"
                : wait.awaitsSignal() ? "" : wait.kind().equals("acquire") ? ", no exclusive owner" : ", no owner";
        return what + ThreadDumpText.describe(wait.lock()) + ownerText;
    }

    private static String frame(ThreadStack t, int depth) {
        List<Frame> frames = t.frames();
        if (depth < 0) {
            return "(entered by JNI)";
        }
        return depth < frames.size() ? ThreadDumpText.frameLine(frames.get(depth)).substring("\tat ".length()) : "(beyond --max-depth)";
    }

    private static String name(ThreadEntry t) {
        String name = ThreadDumpText.quote(t.name()) + " #" + t.id();
        if (t.virtual()) {
            name += t.pinned() ? " (virtual, pinned" : " (virtual";
            name += t.carrierId() == null ? ")" : ", on carrier #" + t.carrierId() + ")";
        }
        return name;
    }

    /** The first NAMES_SHOWN threads, then how many more. */
    private static String names(List<ThreadEntry> threads) {
        if (threads.isEmpty()) {
            return "";
        }
        String shown = threads.stream().limit(NAMES_SHOWN).map(MonitorsText::name).collect(Collectors.joining(", "));
        return ": " + shown + (threads.size() > NAMES_SHOWN ? ", and " + (threads.size() - NAMES_SHOWN) + " more" : "");
    }
}
