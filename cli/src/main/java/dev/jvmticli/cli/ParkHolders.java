package dev.jvmticli.cli;

import dev.jvmticli.analysis.MainWait;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.ParksReport;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.render.ParksView;
import java.util.ArrayList;
import java.util.List;

/**
 * Who holds up the parks on a blocker that has no owner to read: a pool's queue (HikariCP's
 * SynchronousQueue), a condition, a semaphore nobody owns. No exclusiveOwnerThread names a holder
 * there, and the probes see only the waiters; so, after the window, the threads are read once (a
 * dump, virtual threads included) and, for each such blocker still waited on, {@link MainWait}
 * names the threads inside the same caller as its waiters and waiting for nothing (a pool's
 * borrowers that hold a connection), read again together at one instant where some are virtual.
 * Nothing is read when no such blocker was waited on; an agent's refusal to read them leaves them out.
 */
final class ParkHolders {
    /** The ownerless blockers looked at, the most waited on in all first. */
    private static final int BLOCKERS = 3;

    private ParkHolders() {
    }

    static List<ParksView.Holders> read(AgentClient client, ParksReport parks) {
        List<LockRef> ownerless = ParksView.ownerlessWaits(parks).stream().limit(BLOCKERS).toList();
        if (ownerless.isEmpty()) {
            return List.of();
        }
        try {
            return read(client, Dumps.collect(client, Dumps.Request.of(null, MaxDepth.DEFAULT).withVirtual(true)), ownerless);
        } catch (AgentError e) {
            return List.of(); // the window's report stands without them: it is what was asked for
        }
    }

    private static List<ParksView.Holders> read(AgentClient client, StackDump dump, List<LockRef> ownerless) {
        List<ParksView.Holders> found = new ArrayList<>();
        for (LockRef ref : ownerless) {
            MainWait.on(dump, ref).ifPresent(wait -> {
                MainWait.Shared atOnce = HoldersAtOnce.read(client, wait);
                MainWait.Shared inside = atOnce != null ? atOnce : new MainWait.Shared(wait.sharedFrame(), wait.inside());
                found.add(new ParksView.Holders(ref.className() + "@" + Long.toHexString(ref.hash()), wait, inside.frame(), inside.inside(),
                        atOnce != null));
            });
        }
        return found;
    }
}
