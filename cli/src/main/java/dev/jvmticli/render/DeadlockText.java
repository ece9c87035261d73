package dev.jvmticli.render;

import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/** Deadlocks in the shape of jstack's {@code Found one Java-level deadlock:} sections. */
public final class DeadlockText {
    private DeadlockText() {
    }

    /** cycles are lists of threads; full holds their stacks and lock facts. */
    public static void print(PrintWriter out, List<List<ThreadStack>> cycles, StackDump full) {
        Map<Long, ThreadEntry> byId = ThreadDumpText.byId(full);
        for (List<ThreadStack> cycle : cycles) {
            out.println("Found one Java-level deadlock:");
            out.println("=============================");
            for (ThreadStack t : cycle) {
                WaitingFor wait = t.waitingFor();
                ThreadEntry owner = byId.get(wait.ownerId());
                out.println(ThreadDumpText.quote(t.thread().name()) + " #" + t.thread().id() + ":");
                out.println(wait.kind().equals("enter")
                        ? "  waiting to lock monitor " + ThreadDumpText.describe(wait.lock()) + ","
                        : "  waiting for ownable synchronizer " + ThreadDumpText.describe(wait.lock()) + ",");
                out.println("  which is held by " + (owner == null ? "thread #" + wait.ownerId()
                        : ThreadDumpText.quote(owner.name()) + " #" + owner.id()));
            }
            out.println();
            out.println("Java stack information for the threads listed above:");
            out.println("===================================================");
            for (ThreadStack member : cycle) {
                full.threads().stream()
                        .filter(t -> t.thread().id() == member.thread().id())
                        .findFirst()
                        .ifPresent(t -> {
                            ThreadDumpText.printThread(out, t, byId);
                            out.println();
                        });
            }
        }
        out.println(cycles.isEmpty() ? "No deadlocks found."
                : "Found " + cycles.size() + (cycles.size() == 1 ? " deadlock." : " deadlocks."));
        out.flush();
    }
}
