package dev.jvmticli.render;

import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * Deadlocks in the shape of the {@code Found one Java-level deadlock:} sections jstack ends a dump
 * with: each thread of a cycle as {@code "name":} alone on its line, what it waits for and who holds
 * it, a blank line between threads; then each one's frames. Where jstack prints addresses, objects
 * have their {@code <0x...>} identity-hash names, and a monitor is named by its object.
 */
public final class DeadlockText {
    private DeadlockText() {
    }

    /** The deadlocks command: the sections, then how many (also when none). */
    public static void print(PrintWriter out, List<List<ThreadStack>> cycles, StackDump full) {
        if (cycles.isEmpty()) {
            out.println("No deadlocks found.");
        } else {
            printSections(out, cycles, full);
        }
        out.flush();
    }

    /**
     * What jstack appends to a dump with deadlocks, up to its closing blank line: cycles are lists
     * of threads; full holds their stacks and lock facts.
     */
    public static void printSections(PrintWriter out, List<List<ThreadStack>> cycles, StackDump full) {
        Map<Long, ThreadEntry> byId = ThreadDumpText.byId(full);
        for (List<ThreadStack> cycle : cycles) {
            out.println("Found one Java-level deadlock:");
            out.println("=============================");
            for (ThreadStack t : cycle) {
                WaitingFor wait = t.waitingFor();
                ThreadEntry owner = byId.get(wait.ownerId());
                out.println(ThreadDumpText.quote(t.thread().name()) + ":");
                String object = wait.lock().address();
                out.println(wait.kind().equals("enter")
                        ? "  waiting to lock monitor " + object + " (object " + object + ", a " + Printable.text(wait.className()) + "),"
                        : "  waiting for ownable synchronizer " + object + ", (a " + Printable.text(wait.className()) + "),");
                out.println("  which is held by " + (owner == null ? "thread #" + wait.ownerId() : ThreadDumpText.quote(owner.name())));
                out.println();
            }
            out.println("Java stack information for the threads listed above:");
            out.println("===================================================");
            for (ThreadStack member : cycle) {
                full.threads().stream()
                        .filter(t -> t.thread().id() == member.thread().id())
                        .findFirst()
                        .ifPresent(t -> {
                            out.println(ThreadDumpText.quote(t.thread().name()) + ":");
                            ThreadDumpText.printFrames(out, t);
                        });
            }
            out.println();
        }
        out.println("Found " + cycles.size() + (cycles.size() == 1 ? " deadlock." : " deadlocks."));
        out.flush();
    }
}
