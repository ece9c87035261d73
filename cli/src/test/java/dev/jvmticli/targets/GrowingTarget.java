package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.locks.LockSupport;

/**
 * A target whose thread count the test sets: {@code grow} starts one more parked thread and answers
 * how many live threads the JVM now has.
 */
public final class GrowingTarget {
    private GrowingTarget() {
    }

    public static void main(String[] args) throws Exception {
        int[] started = {0};
        TargetMain.serve(command -> {
            if (!command.equals("grow")) {
                return "unknown command " + command;
            }
            TargetMain.start("parked-" + started[0]++, () -> {
                while (true) {
                    LockSupport.park();
                }
            });
            return Integer.toString(Thread.getAllStackTraces().size());
        });
    }
}
