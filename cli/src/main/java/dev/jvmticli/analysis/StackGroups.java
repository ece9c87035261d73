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
}
