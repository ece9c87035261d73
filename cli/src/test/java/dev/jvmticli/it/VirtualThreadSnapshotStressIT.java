package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.VthreadsRequest;
import dev.jvmticli.targets.MountChurnTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.TargetJvm;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Frames and lock facts of virtual threads that mount, unmount and park without pause
 * (MountChurnTarget), asked for again and again on JDK 25, where the lock facts come from HotSpot's
 * ThreadSnapshot: the target lives through it, and each holder that was seen settled owns its own
 * monitor. Before the agent held each virtual thread still (suspended) while it looked at it,
 * holders were seen owning nothing, and HotSpot now and then crashed the target
 * (GetThreadSnapshotClosure::do_thread, or JVMTI's GetThreadListStackTraces): see virtual-threads.md.
 */
class VirtualThreadSnapshotStressIT {
    private static final Optional<Jdks.Jdk> JDK = Jdks.atLeast(25);
    private static final long STRESS_NANOS = 20_000_000_000L;
    private static final String HOLDER_LOCK = MountChurnTarget.HolderLock.class.getName();

    @Test
    void theTargetLivesThroughSnapshotsOfVirtualThreadsThatMountAndUnmount() throws Exception {
        assumeTrue(JDK.isPresent(), "no JDK 25 or later is installed: ThreadSnapshot cannot be tested here");
        try (TargetJvm target = TargetJvm.start(JDK.get(), MountChurnTarget.class, List.of())) {
            Result attach = CliRun.run("threads", Long.toString(target.pid()));
            assertEquals(0, attach.exit(), attach.toString());
            Stress stress = new Stress();
            try (AgentClient client = AgentProbe.open(target.pid())) {
                stress.run(client);
            } catch (RuntimeException e) {
                boolean died = target.process().waitFor(10, TimeUnit.SECONDS);
                assertFalse(died, "the target died after " + stress.answers + " answers: " + target.output());
                throw e;
            }
            assertTrue(target.process().isAlive(), "the target died after " + stress.answers + " answers: " + target.output());
            assertTrue(stress.holdersSettled >= stress.answers,
                    "holders seen settled " + stress.holdersSettled + " times in " + stress.answers + " answers");
        }
    }

    /** vthreads with lock facts, asked for STRESS_NANOS, each answer checked. */
    private static final class Stress {
        int answers;
        int holdersSettled;

        void run(AgentClient client) {
            VthreadsRequest request = VthreadsRequest.of(null).withFrames(true).withMaxDepth(64).withLocks(true);
            long end = System.nanoTime() + STRESS_NANOS;
            while (System.nanoTime() - end < 0) {
                VirtualDump dump = client.vthreads(request);
                assertEquals("snapshot", dump.lockSource());
                answers++;
                for (VirtualDump.VirtualStack thread : dump.threads()) {
                    if (thread.thread().name().startsWith("holder-") && !thread.unsettled()) {
                        holdersSettled++;
                        List<String> owned = thread.locked().stream().map(LockedMonitor::className).toList();
                        assertTrue(owned.contains(HOLDER_LOCK), thread.thread().name() + " owns " + owned);
                    }
                }
            }
        }
    }
}
