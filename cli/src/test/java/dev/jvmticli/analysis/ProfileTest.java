package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadList;
import dev.jvmticli.client.VmThread;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProfileTest {
    private static VmThread vm(String name, long nid) {
        return new VmThread(name, null, null, null, null, null, -1, nid, null, null, null, null);
    }

    @Test
    void threadsAreNamedByTheLiveThreadWithTheirNidAndKeepTheEnginesNameWhereNoneMatches() {
        Profile profile = Profile.parse(List.of(
                "[C2 CompilerThre tid=101];Compile::Compile 7",
                "[GC Thread#0 tid=102];G1ParTask::work 5",
                "[worker-1 tid=103];Burn.spin_[j] 3",
                "[C1 CompilerThre tid=104];Compilation::compile 2",
                "Burn.main_[0] 1"));
        ThreadList live = new ThreadList(true,
                List.of(new ThreadEntry(1, "worker-1 renamed", "RUNNABLE", List.of(), false, 5, "main", -1, 103, false, null),
                        new ThreadEntry(2, "never sampled", "RUNNABLE", List.of(), false, 5, "main", -1, 0, false, null)),
                List.of(vm("C2 CompilerThread0", 101), vm("GC Thread#0", 102), vm("VM Thread", 999)), null);

        List<Profile.ThreadTotal> threads = profile.named(live).threads();

        assertEquals(List.of(new Profile.ThreadTotal("C2 CompilerThread0", 101, 7), new Profile.ThreadTotal("GC Thread#0", 102, 5),
                new Profile.ThreadTotal("worker-1 renamed", 103, 3), new Profile.ThreadTotal("C1 CompilerThre", 104, 2),
                new Profile.ThreadTotal("", -1, 1)), threads);
    }

    @Test
    void withoutTheJvmsOwnThreadsOnlyJavaThreadsAreRenamed() {
        Profile profile = Profile.parse(List.of("[C2 CompilerThre tid=101];Compile::Compile 7", "[w tid=103];Burn.spin_[j] 3"));
        ThreadList live = new ThreadList(true, List.of(new ThreadEntry(1, "worker", "RUNNABLE", List.of(), false, 5, "main", -1, 103, false, null)));

        assertEquals(List.of(new Profile.ThreadTotal("C2 CompilerThre", 101, 7), new Profile.ThreadTotal("worker", 103, 3)),
                profile.named(live).threads());
    }
}
