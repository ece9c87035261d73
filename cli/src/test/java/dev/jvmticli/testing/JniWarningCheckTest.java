package dev.jvmticli.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JniWarningCheckTest {
    private static final String UNCHECKED = "WARNING in native method: JNI call made without checking exceptions when required to from CallIntMethod";

    /** Lines as a target on JDK 17 printed them before the agent checked its exceptions. */
    private static List<TargetJvm.OutputLine> printed(String... texts) {
        List<TargetJvm.OutputLine> lines = new ArrayList<>();
        for (String text : texts) {
            lines.add(new TargetJvm.OutputLine(System.nanoTime(), "stdout", text));
        }
        return lines;
    }

    @Test
    void countsEachWarningAndNamesTheCommandBeforeItsFirstOccurrence() {
        CommandLog.record("in-process", new String[] {"deadlocks", "4242"});
        List<TargetJvm.OutputLine> lines = printed("READY 4242",
                UNCHECKED,
                "Native frames: (J=compiled Java code, j=interpreted, Vv=VM code, C=native code)",
                "V  [libjvm.so+0x8d8b8e]  functionEnter(JavaThread*)+0x12e",
                "V  [libjvm.so+0x8e64ba]  checked_jni_CallBooleanMethod+0xaa",
                "",
                UNCHECKED,
                "WARNING: JNI local refs: 33, exceeds capacity: 32",
                "WARNING: A JVM TI agent has been loaded dynamically (/tmp/libjvmticli.so)");
        String report = JniWarningCheck.report(4242, "LocksTarget on JDK 17", lines, false);
        assertTrue(report.startsWith("  target JVM 4242 (LocksTarget on JDK 17): 3 warning(s)"), report);
        assertTrue(report.contains("2x " + UNCHECKED), report);
        assertTrue(report.contains("1x WARNING: JNI local refs: 33, exceeds capacity: 32"), report);
        assertTrue(report.contains("after `jvmti-cli deadlocks 4242` (in-process), started "), report);
        assertTrue(report.contains("checked_jni_CallBooleanMethod"), "the native frames of the first: " + report);
        assertTrue(!report.contains("loaded dynamically"), "JEP 451's warning is not the checker's: " + report);
        assertEquals(2, report.split("after `", -1).length - 1, "one preceding command per distinct warning: " + report);
    }

    @Test
    void fatalErrorsAndSignalHandlerChecksAreWarningsToo() {
        assertTrue(JniWarningCheck.WARNING.matcher("FATAL ERROR in native method: Bad global or local ref passed to JNI").find());
        assertTrue(JniWarningCheck.WARNING.matcher("Warning: SIGINT handler modified!").find());
        assertTrue(JniWarningCheck.WARNING.matcher("Warning: SIGRTMIN+3 handler modified!").find(), "a real-time signal's name");
        assertTrue(JniWarningCheck.WARNING.matcher("WARNING in native method: JNI call made with exception pending").find());
        assertTrue(JniWarningCheck.WARNING.matcher("WARNING: JNI local refs: 265, exceeds capacity: 263").find());
        assertTrue(JniWarningCheck.WARNING.matcher(
                "Warning: Calling other JNI functions in the scope of Get/ReleasePrimitiveArrayCritical or Get/ReleaseStringCritical").find());
    }

    @Test
    void aTargetThatPrintedNoWarningHasNoReport() {
        assertNull(JniWarningCheck.report(1, "CounterTarget on JDK 25", printed("READY 1", "WARNING: Dynamic loading of agents will be disallowed by default in a future release"), false));
    }

    @Test
    void aProfiledTargetMayReportTheProfilersSignalHandlersButNothingElse() {
        List<TargetJvm.OutputLine> lines = printed("READY 7", "Warning: SIGSEGV handler modified!", "Warning: SIGBUS handler modified!");
        assertNull(JniWarningCheck.report(7, "ProfileTarget on JDK 17", lines, true));
        assertTrue(JniWarningCheck.report(7, "ProfileTarget on JDK 17", lines, false).contains("2 warning(s)"));
        List<TargetJvm.OutputLine> jdk11 = printed("READY 7", "Warning: SIGSEGV handler expected:libjvm.so+0xbc6680  found:6+0x10110");
        assertNull(JniWarningCheck.report(7, "AllocTarget on JDK 11", jdk11, true));
        assertTrue(JniWarningCheck.report(7, "AllocTarget on JDK 11", jdk11, false).contains("1 warning(s)"));
        String other = JniWarningCheck.report(7, "ProfileTarget on JDK 17", printed("READY 7", "Warning: SIGINT handler modified!"), true);
        assertTrue(other != null && other.contains("SIGINT"), "only the two signals async-profiler takes: " + other);
    }

    @Test
    void jdk11sNoteOnAShutdownSignalIgnoredFromTheStartIsExpectedOnlyWhereItWasIgnored() {
        String hup = "Warning: SIGHUP handler expected:libjvm.so+0xbc6ce0  found:0x0000000000000001";
        String intr = "Warning: SIGINT handler expected:libjvm.so+0xbc6ce0  found:0x0000000000000001";
        long hupIgnored = 1L;
        assertTrue(JniWarningCheck.ignoredOnStart(hup, hupIgnored));
        assertTrue(!JniWarningCheck.ignoredOnStart(intr, hupIgnored), "SIGINT was not ignored");
        assertTrue(JniWarningCheck.ignoredOnStart(intr, 0b11));
        assertTrue(!JniWarningCheck.ignoredOnStart("Warning: SIGHUP handler expected:libjvm.so+0xbc6ce0  found:libagent.so+0x10", 0b11),
                "another handler than SIG_IGN is a warning");
        assertTrue(!JniWarningCheck.ignoredOnStart("Warning: SIGSEGV handler expected:libjvm.so+0xbc6680  found:0x0000000000000001", -1L));
    }
}
