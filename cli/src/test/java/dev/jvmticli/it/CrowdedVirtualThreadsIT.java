package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.CrowdedDeadlockTarget;
import dev.jvmticli.testing.AgentMode;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * deadlocks and monitors ask only the virtual threads that may wait for a lock ("waitingOnly"): a
 * cycle of two virtual threads, one blocked on a monitor and one parked on a ReentrantLock, is
 * still found among 12,000 that sleep or park without a blocker, and those are still counted; a
 * monitor owned by a sleeping virtual thread is still shown with its owner.
 */
class CrowdedVirtualThreadsIT {
    private static final Optional<Jdks.Jdk> JDK = Jdks.atLeast(21);

    @ParameterizedTest
    @EnumSource(AgentMode.class)
    void theCycleIsFoundAmongThousandsThatWaitForNothing(AgentMode mode) {
        assumeTrue(JDK.isPresent(), "no JDK 21 or later is installed: virtual threads cannot be tested here");
        try (TargetJvm target = TargetJvm.start(JDK.get(), CrowdedDeadlockTarget.class, mode.jvmOptions())) {
            String pid = Long.toString(target.pid());
            Result text = CliRun.run("deadlocks", pid);
            assertEquals(10, text.exit(), text.toString());
            assertTrue(Pattern.compile("\n\"vt-cycle-lock\":\n  waiting to lock monitor (<0x[0-9a-f]+>) \\(object \\1, a java\\.lang\\.Object\\),\n"
                    + "  which is held by \"vt-cycle-monitor\"\n").matcher(text.out()).find(), text.out());
            assertTrue(text.out().contains("\n\"vt-cycle-monitor\":\n  waiting for ownable synchronizer "), text.out());
            assertTrue(text.out().endsWith("Found 1 deadlock.\n"), text.out());

            JsonNode document = Json.parse(CliRun.run("deadlocks", pid, "--json").out());
            Set<String> names = new TreeSet<>();
            document.path("deadlocks").get(0).forEach(t -> names.add(t.path("thread").path("name").asText()));
            assertEquals(Set.of("vt-cycle-lock", "vt-cycle-monitor"), names);

            Result byLock = CliRun.run("monitors", pid, "--by-lock");
            assertEquals(0, byLock.exit(), byLock.toString());
            assertTrue(Pattern.compile("  owner: \"vt-cycle-monitor\" #\\d+ \\(virtual\\)\n  waiting to enter \\(1\\): \"vt-cycle-lock\" #\\d+ \\(virtual\\)\n")
                    .matcher(byLock.out()).find(), byLock.out());
            assertTrue(!byLock.out().contains("vt-crowd-"), "no lock names a thread that waits for none:\n" + byLock.out());
            assertTrue(Pattern.compile("  owner: \"vt-sleeping-holder\" #\\d+ \\(virtual\\)\n  waiting to enter \\(1\\): \"vt-blocked-on-sleeper\" #\\d+ \\(virtual\\)\n")
                    .matcher(byLock.out()).find(), "a sleeping owner is found:\n" + byLock.out());

            JsonNode summary = Json.parse(CliRun.run("threads", pid, "--virtual", "--summary", "--json").out()).path("virtual");
            assertEquals(CrowdedDeadlockTarget.PARKED + CrowdedDeadlockTarget.SLEEPERS + 4, summary.path("count").asInt(), summary.toString());
        }
    }
}
