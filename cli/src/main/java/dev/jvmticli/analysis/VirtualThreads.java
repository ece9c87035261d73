package dev.jvmticli.analysis;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.VirtualDump.VirtualStack;
import dev.jvmticli.client.WaitingFor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Platform and virtual threads in one dump: each carrier marked with the virtual thread it carries,
 * and the owners of monitors filled in across the two.
 *
 * <p>Who owns a monitor is known to neither source alone: ThreadMXBean reports for a platform thread
 * blocked on a monitor that a virtual thread owns either no owner (the virtual thread is unmounted)
 * or its carrier; the virtual threads' snapshots name the monitor they wait for but not its owner.
 * Both name the monitors each thread owns, by identity hash and class, so the owner of a monitor
 * is the thread that lists it as locked; a virtual owner wins over its carrier.
 */
public final class VirtualThreads {
    private VirtualThreads() {
    }

    /** The virtual threads as stacks, by id, their frames taken from the shared stack table. */
    public static List<ThreadStack> stacks(VirtualDump dump) {
        List<ThreadStack> stacks = new ArrayList<>(dump.threads().size());
        List<VirtualStack> byId = new ArrayList<>(dump.threads());
        byId.sort(Comparator.comparingLong(v -> v.thread().id()));
        for (VirtualStack v : byId) {
            List<Frame> frames = v.stack() != null && v.stack() < dump.stacks().size() ? dump.stacks().get(v.stack()) : v.frames();
            ThreadEntry thread = pinnedAsFramesSay(v.thread(), frames);
            stacks.add(new ThreadStack(thread, frames, v.truncated(), v.locked(), v.waitingFor(), v.unsettled(), v.waitUnnamed()));
        }
        return stacks;
    }

    /**
     * The thread, pinned only where its frames of the same moment agree: a thread whose top frame
     * yields is on its way off its carrier, whatever the JDK's state said a moment apart. Its frames
     * prove it pinned when it is parked by VirtualThread.parkOnCarrierThread (the JDK parks it there
     * because it cannot unmount), or when it waits on its carrier (blocked entering a monitor, in
     * Object.wait) under a class initializer or a native frame, which no virtual thread can unmount
     * from (on JDK 24+, where a monitor otherwise lets it unmount, the agent leaves that to the frames).
     */
    static ThreadEntry pinnedAsFramesSay(ThreadEntry thread, List<Frame> frames) {
        if (frames == null || frames.isEmpty() || thread.carrierId() == null) {
            return thread.pinned() && thread.carrierId() == null ? thread.pinned(false) : thread;
        }
        boolean yielding = isYield(frames.get(0));
        boolean parkedOnCarrier = frames.size() > 1 && frames.get(1).className().equals("java.lang.VirtualThread")
                && frames.get(1).method().equals("parkOnCarrierThread");
        boolean waitsOnCarrier = (thread.state().equals("BLOCKED") || thread.hasFlag("in_object_wait"))
                && frames.subList(1, frames.size()).stream().anyMatch(f -> f.nativeMethod() || f.method().equals("<clinit>"));
        boolean pinned = !yielding && (thread.pinned() || parkedOnCarrier || waitsOnCarrier);
        return pinned == thread.pinned() ? thread : thread.pinned(pinned);
    }

    /** A frame where a virtual thread gives up its carrier. */
    private static boolean isYield(Frame frame) {
        return frame.className().equals("java.lang.VirtualThread") && frame.method().equals("yieldContinuation")
                || frame.className().equals("jdk.internal.vm.Continuation") && frame.method().startsWith("yield");
    }

    /**
     * Whether a carrier's own frames show a virtual thread mounted on it: Continuation.run, under which
     * the virtual thread's frames run (JVMTI shows them as the virtual thread's, not the carrier's).
     */
    static boolean continuationMounted(List<Frame> frames) {
        return frames.stream().anyMatch(f -> f.className().equals("jdk.internal.vm.Continuation") && f.method().equals("run"));
    }

    /**
     * Platform threads (carriers marked) followed by virtual threads, owners resolved. A carrier is
     * marked as its own frames say, which are of another moment than the virtual threads' walk: the
     * virtual thread the walk found on it when its frames show one mounted (or, when the walk found
     * none there, one not known), and none when they show none. Without frames, as the walk found.
     */
    public static StackDump merge(StackDump platform, VirtualDump virtual) {
        Map<Long, Long> carried = new HashMap<>();
        virtual.threads().forEach(v -> {
            if (v.thread().carrierId() != null) {
                carried.put(v.thread().carrierId(), v.thread().id());
            }
        });
        List<ThreadStack> all = new ArrayList<>(platform.threads().size() + virtual.threads().size());
        for (ThreadStack t : platform.threads()) {
            Long vthread = carried.get(t.thread().id());
            if (t.frames().isEmpty()) {
                all.add(vthread == null ? t : t.about(t.thread().carrying(vthread)));
            } else if (continuationMounted(t.frames())) {
                all.add(t.about(t.thread().carrying(vthread)));
            } else {
                all.add(t);
            }
        }
        all.addAll(stacks(virtual));
        String source = virtual.threads().isEmpty() ? platform.lockSource() : platform.lockSource() + "+" + virtual.lockSource();
        return new StackDump(platform.time(), source, platform.lockFactsComplete() && virtual.lockFactsComplete(),
                resolveOwners(all), platform.vmThreads());
    }

    /** The threads with the owner of each contended monitor filled in from who lists it as locked. */
    public static List<ThreadStack> resolveOwners(List<ThreadStack> threads) {
        Map<LockRef, Long> virtualOwners = new HashMap<>();
        Map<LockRef, Long> platformOwners = new HashMap<>();
        for (ThreadStack t : threads) {
            if (t.waitUnnamed()) {
                continue; // one of what it entered it let go of, not known which
            }
            for (LockedMonitor m : t.locked()) {
                (t.thread().virtual() ? virtualOwners : platformOwners).putIfAbsent(m.lock(), t.thread().id());
            }
        }
        if (virtualOwners.isEmpty() && threads.stream().noneMatch(t -> t.thread().virtual())) {
            return threads;
        }
        List<ThreadStack> resolved = new ArrayList<>(threads.size());
        for (ThreadStack t : threads) {
            WaitingFor wait = t.waitingFor();
            Long owner = wait == null || !wait.kind().equals("enter") ? null
                    : virtualOwners.containsKey(wait.lock()) ? virtualOwners.get(wait.lock())
                    : wait.hasOwner() ? null
                    : platformOwners.get(wait.lock());
            if (owner == null || owner == t.thread().id() || owner == wait.ownerId()) {
                resolved.add(t);
            } else {
                resolved.add(t.waiting(new WaitingFor(wait.kind(), wait.className(), wait.hash(), owner)));
            }
        }
        return resolved;
    }
}
