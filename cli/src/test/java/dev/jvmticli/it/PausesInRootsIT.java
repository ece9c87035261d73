package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.PausesTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.DebianRoots.RootJdk;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * PausesIT's collectors on the JDKs this machine lacks: Debian's OpenJDK 11 (bullseye) and 21
 * (trixie), each JVM in its root and a mount namespace of its own. Both have G1, Parallel,
 * Shenandoah and ZGC (experimental on 11); 21 has generational ZGC too. One target per collector,
 * with the loop holding its safepoints up and --late-threads: every safepoint the target logged in
 * the window is reported once with its figures (JDK 11's three-line form on 11), each collector
 * pause in its safepoint, and the loop named under a pause it held up.
 */
class PausesInRootsIT {
    private static final Path LOG = Path.of("/tmp/pauses.log");

    static Stream<Arguments> collectors() {
        return DebianRoots.jdks().filter(jdk -> jdk.feature() == 11 || jdk.feature() == 21).flatMap(jdk -> collectors(jdk.feature())
                .map(collector -> Arguments.of(jdk, collector)));
    }

    private static Stream<String> collectors(int feature) {
        Stream<String> each = Stream.of("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseShenandoahGC");
        return feature == 11 ? Stream.concat(each, Stream.of("-XX:+UnlockExperimentalVMOptions -XX:+UseZGC"))
                : Stream.concat(each, Stream.of("-XX:+UseZGC", "-XX:+UseZGC -XX:+ZGenerational"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("collectors")
    void everyPauseTheJvmLoggedIsReportedOnceAndTheLoopThatHeldOneUpIsNamed(RootJdk jdk, String collector) throws Exception {
        List<String> options = new ArrayList<>(List.of(collector.split(" ")));
        // C2 without polls in counted loops, as PausesIT's; the log in the target's own /tmp, read through /proc/pid/root
        options.addAll(List.of("-Xmx64m", "-XX:TieredStopAtLevel=4", "-XX:-UseCountedLoopSafepoints", PausesIT.ownLog(LOG)));
        Path classes = DebianRoots.classes(jdk.root(), Path.of(CliRun.run("agent-path").out().strip()), PausesTarget.class);
        // async-profiler (--late-threads) chains the signal handlers and records JFR
        try (TargetJvm target = TargetJvm.startWrapped(DebianRoots.ownMountNamespace(jdk.root()), classes, jdk.inside(), PausesTarget.class,
                options, "late").profiled()) {
            Path log = Path.of("/proc", Long.toString(target.pid()), "root").resolve(LOG.toString().substring(1));
            JsonNode doc = PausesIT.pauses(target, "4s", "--late-threads");
            List<PausesIT.Logged> inWindow = jdk.feature() == 11 ? PausesIT.checkAgainstJdk11Log(doc, log) : PausesIT.checkAgainstOwnLog(doc, log);
            assertTrue(inWindow.size() >= 3, "the allocator's collections and the loop's: " + inWindow);
            assertTrue(inWindow.stream().anyMatch(l -> l.reachingNanos() >= 100_000_000L), "the loop held up a safepoint in the window from "
                    + doc.path("startedMillis") + " to " + doc.path("stoppedMillis") + ": " + inWindow);
            PausesIT.checkCollectorPauses(doc, log);
            assertTrue(PausesIT.assertEachLatePauseNamesTheLoop(doc, jdk.feature() == 11) >= 1, doc.toString());
            String outputs = DebianRoots.toolOutput(jdk, target.pid(), "jcmd", Long.toString(target.pid()), "VM.log", "list");
            assertFalse(outputs.contains("/proc/self/fd/"), "the agent's log output is taken away: " + outputs);
        }
    }
}
