package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DemoIT {
    @Test
    void demoStartsASampleJvmShowsItsThreadsAndStopsIt() throws Exception {
        Result result = CliRun.run("demo");
        assertEquals(0, result.exit(), result.toString());
        Matcher pid = Pattern.compile("pid (\\d+)").matcher(result.out());
        assertTrue(pid.find(), result.out());
        for (String expected : new String[] {"RUNNABLE.*demo-busy", "BLOCKED.*demo-blocked-1", "BLOCKED.*demo-deadlock-left",
                "WAITING.*parked.*demo-parked", "WAITING.*in_object_wait.*demo-waiter", "TIMED_WAITING.*sleeping.*demo-sleeper"}) {
            assertTrue(Pattern.compile(expected).matcher(result.out()).find(), expected + " in\n" + result.out());
        }
        long demoPid = Long.parseLong(pid.group(1));
        long deadline = System.nanoTime() + 20_000_000_000L; // a hang's bound: a JVM's exit can wait for the CPU on a loaded machine
        while (ProcessHandle.of(demoPid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(ProcessHandle.of(demoPid).isEmpty() || !ProcessHandle.of(demoPid).get().isAlive(), "demo JVM stopped");
    }
}
