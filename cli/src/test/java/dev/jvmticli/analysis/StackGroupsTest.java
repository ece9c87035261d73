package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import java.util.List;
import org.junit.jupiter.api.Test;

class StackGroupsTest {
    private static ThreadStack stack(long id, String state, String... methods) {
        List<Frame> frames = java.util.Arrays.stream(methods).map(m -> new Frame("a.B", m, "B.java", 1, false)).toList();
        return new ThreadStack(new ThreadEntry(id, "t" + id, state, List.of(), false, 5, "main", 0, 0, false, null), frames, false, List.of(), null);
    }

    @Test
    void identicalStateAndFramesCollapseLargestFirst() {
        List<StackGroups.Group> groups = StackGroups.of(List.of(
                stack(1, "WAITING", "park", "take"),
                stack(2, "RUNNABLE", "work"),
                stack(3, "WAITING", "park", "take"),
                stack(4, "TIMED_WAITING", "park", "take"),
                stack(5, "WAITING", "park", "take")));
        assertEquals(List.of(3, 1, 1), groups.stream().map(StackGroups.Group::count).toList());
        assertEquals(List.of(1L, 3L, 5L), groups.get(0).threads().stream().map(ThreadEntry::id).toList());
        assertEquals("RUNNABLE", groups.get(1).state());
    }

    @Test
    void theDistinctFrameIsTheFirstNotSharedWithAnyOtherGroup() {
        List<StackGroups.Group> groups = StackGroups.of(List.of(
                stack(1, "WAITING", "park", "park", "await", "take", "getTask"),
                stack(2, "WAITING", "park", "park", "await", "take", "getTask"),
                stack(3, "WAITING", "park", "park", "await", "poll", "scheduler"),
                stack(4, "WAITING", "park", "park", "acquire", "lock", "reserve"),
                stack(5, "RUNNABLE", "work")));
        assertEquals(List.of(3, 3, 2, 0), groups.stream().map(g -> StackGroups.distinctDepth(g, groups)).toList());
        assertEquals("take", groups.get(0).frames().get(3).method());
    }

    @Test
    void groupsThatShareEveryFrameHaveNoFrameThatTellsThemApart() {
        // Kafka's pools all end in Thread.run: a frame every group has tells none apart
        List<StackGroups.Group> groups = StackGroups.of(List.of(
                stack(1, "WAITING", "park", "take", "run"),
                stack(2, "TIMED_WAITING", "park", "take", "run"),
                stack(4, "WAITING", "park", "take"),
                stack(3, "WAITING")));
        assertEquals(List.of(-1, -1, -1, 0), groups.stream().map(g -> StackGroups.distinctDepth(g, groups)).toList());
    }

    @Test
    void aFrameThatDiffersOnlyInItsLineDoesNotTellGroupsApart() {
        Frame parkHere = new Frame("java.util.concurrent.locks.LockSupport", "park", "LockSupport.java", 341, false);
        Frame parkThere = new Frame("java.util.concurrent.locks.LockSupport", "park", "LockSupport.java", 211, false);
        ThreadEntry entry = new ThreadEntry(1, "t1", "WAITING", List.of(), false, 5, "main", 0, 0, false, null);
        List<StackGroups.Group> groups = List.of(
                new StackGroups.Group(2, "WAITING", List.of(parkHere, new Frame("a.B", "await", "B.java", 1, false)), List.of(entry)),
                new StackGroups.Group(1, "WAITING", List.of(parkThere, new Frame("a.B", "acquire", "B.java", 2, false)), List.of(entry)));
        assertEquals(1, StackGroups.distinctDepth(groups.get(0), groups));
    }
}
