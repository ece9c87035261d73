package dev.jvmticli.analysis;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Threads with identical stacks (same state, same frames) collapsed into one group each. */
public final class StackGroups {
    /** One stack shared by count threads. */
    public record Group(int count, String state, List<Frame> frames, List<ThreadEntry> threads) {
    }

    private StackGroups() {
    }

    /** Largest groups first; ties in order of first appearance. */
    public static List<Group> of(List<ThreadStack> threads) {
        Map<List<Object>, List<ThreadStack>> groups = new LinkedHashMap<>();
        for (ThreadStack t : threads) {
            groups.computeIfAbsent(List.of(t.thread().state(), t.frames()), k -> new ArrayList<>()).add(t);
        }
        return groups.values().stream()
                .map(members -> new Group(members.size(), members.get(0).thread().state(), members.get(0).frames(),
                        members.stream().map(ThreadStack::thread).toList()))
                .sorted(Comparator.comparingInt(Group::count).reversed())
                .toList();
    }

    /**
     * The depth (0 = top) of the first frame of group that tells it apart from each of the others:
     * the frame below the methods it shares with any of them (idle pools all sit in Unsafe.park and
     * LockSupport.park, whichever line called them). 0 when it has no frames; -1 when another
     * group's stack has all of its frames' methods in the same order from the top (the groups then
     * differ in their state, in lines, or in frames below): no frame of its own tells it apart.
     */
    public static int distinctDepth(Group group, List<Group> others) {
        List<Frame> frames = group.frames();
        int depth = 0;
        for (Group other : others) {
            if (other == group) {
                continue;
            }
            List<Frame> theirs = other.frames();
            int shared = 0;
            while (shared < frames.size() && shared < theirs.size() && sameMethod(frames.get(shared), theirs.get(shared))) {
                shared++;
            }
            depth = Math.max(depth, shared);
        }
        return frames.isEmpty() ? 0 : depth == frames.size() ? -1 : depth;
    }

    private static boolean sameMethod(Frame a, Frame b) {
        return a.className().equals(b.className()) && a.method().equals(b.method());
    }
}
