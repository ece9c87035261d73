package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.targets.GrowingTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.JniWarningCheck;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The check every test class gets (JniWarningCheck) catches what the JVM's JNI checker prints. */
class JniWarningCheckIT {
    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    /** The stand-in agent, built by the native module's test phase. */
    private static Path misuse() {
        Path misuse = Path.of(System.getProperty("user.dir")).resolve("../native/target/test/libjnimisuse.so").normalize();
        assertTrue(Files.isRegularFile(misuse), "built by the native module's test phase: " + misuse);
        return misuse;
    }

    /** A target whose stand-in agent breaks a rule as the agent's own thread starts, during the first command; its report. */
    private static String reportOfFirstCommands(Jdks.Jdk jdk, String mode) throws Exception {
        TargetJvm target = TargetJvm.start(jdk, CounterTarget.class, List.of("-agentpath:" + misuse() + "=" + mode + ",jvmti-cli agent"));
        String report;
        try (target) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            assertEquals(0, CliRun.run("stacks", pid).exit());
        } finally {
            report = JniWarningCheck.takeReport(target);
        }
        assertNotNull(report, "the target's output: " + target.output());
        assertTrue(report.contains(": 1 warning(s)"), report);
        assertTrue(report.contains("after `jvmti-cli threads " + target.pid() + "` (in-process), started "), report);
        return report;
    }

    /**
     * A stand-in agent makes a JNI call without checking for an exception: the report names the
     * warning, the command before it and the stack of the call.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void aBrokenJniRuleIsReportedWithTheCommandBeforeIt(Jdks.Jdk jdk) throws Exception {
        String report = reportOfFirstCommands(jdk, "exception");
        assertTrue(report.contains("1x WARNING in native method: JNI call made without checking exceptions when required to from CallObjectMethod"),
                report);
        assertTrue(report.contains("checked_jni_GetObjectClass"), "the stack of the call: " + report);
    }

    /**
     * The JDKs whose checker counts local references: Temurin 25's printed no such warning here,
     * neither for 80 references held in a callback's frame nor for `profile`'s ~1,170 on a target
     * of ~390 threads, where OpenJDK 17's printed 23.
     */
    static Stream<Jdks.Jdk> jdksCountingLocalReferences() {
        return Jdks.stream().filter(jdk -> jdk.feature() < 25);
    }

    /**
     * A stand-in agent holds more local references than its frame has room for: the checker's
     * other form, `WARNING: JNI local refs: N, exceeds capacity: M` (what `profile` printed on a
     * broker of ~100 threads), fails a class as well.
     */
    @ParameterizedTest
    @MethodSource("jdksCountingLocalReferences")
    void localReferencesPastTheFramesCapacityAreReported(Jdks.Jdk jdk) throws Exception {
        String report = reportOfFirstCommands(jdk, "locals");
        assertTrue(report.contains("1x WARNING: JNI local refs: 33, exceeds capacity: 32"), report);
    }

    /**
     * A command holds a reference to every thread next to its own: from 33 threads up (its frame
     * of 32 and the checker's slack of 32) it must make room for them. Found on a 62-thread Tomcat,
     * where every command warned; the thread counts around the frame's plan are each tried here, and
     * the extension fails this class on any warning.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void commandsOnThreadCountsAroundTheLocalFrameWarnNothing(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, GrowingTarget.class)) {
            String pid = Long.toString(target.pid());
            int live = Integer.parseInt(target.ask("grow"));
            while (live < 56) {
                live = Integer.parseInt(target.ask("grow"));
            }
            for (; live <= 70; live = Integer.parseInt(target.ask("grow"))) {
                assertEquals(0, CliRun.run("threads", pid).exit(), "threads at " + live + " threads");
                assertEquals(0, CliRun.run("stacks", "-l", pid).exit(), "stacks -l at " + live + " threads");
            }
        }
    }
}
