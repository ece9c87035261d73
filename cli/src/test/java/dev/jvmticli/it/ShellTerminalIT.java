package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.NamedTarget;
import dev.jvmticli.targets.VirtualThreadsTarget;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Launcher;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.Tmux;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The interactive shell in a real terminal (tmux), the CLI and the target on each installed JDK:
 * prompt, completion of commands, options and live thread names, Ctrl-C, watch, colour, history
 * across runs, Ctrl-R, NO_COLOR, and the exit code.
 */
class ShellTerminalIT {
    private static final String RED = "\u001b[31m";

    @TempDir
    Path dir;

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private String shellCommand(Jdks.Jdk jdk, long pid, String extraEnv) {
        return "env HOME=" + dir + " TERM=xterm-256color JAVA_HOME=" + jdk.home() + " " + extraEnv + " "
                + Launcher.script() + " " + pid + "; echo EXITED $?; sleep 600";
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void completionCtrlCWatchHistoryAndColour(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, NamedTarget.class)) {
            String prompt = target.pid() + " NamedTarget> ";
            try (Tmux tmux = Tmux.start(dir, shellCommand(jdk, target.pid(), ""))) {
                tmux.await("the prompt", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));
                assertTrue(tmux.screenWithEscapes().contains("\u001b[1m\u001b[36m" + target.pid() + " NamedTarget"), "a bold cyan prompt");

                tmux.type("thr");
                tmux.keys("Tab");
                tmux.await("the command completed", screen -> Tmux.lastLine(screen).equals(prompt + "threads"));
                tmux.type("--na");
                tmux.keys("Tab");
                tmux.await("the option completed", screen -> Tmux.lastLine(screen).equals(prompt + "threads --name"));
                tmux.type("slee");
                tmux.keys("Tab");
                tmux.await("a live thread name completed", screen -> Tmux.lastLine(screen).equals(prompt + "threads --name sleeper"));
                tmux.keys("Enter");
                tmux.await("the sleeper's row", screen -> Pattern.compile("TIMED_WAITING .*sleeping .*  sleeper\n").matcher(screen).find());
                tmux.await("the prompt", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));

                // Ctrl-C cancels a command that would run a minute, and the shell goes on
                tmux.type("threads --top 1 --interval 60s");
                tmux.keys("Enter");
                long start = System.nanoTime();
                tmux.awaitEntered("threads --top 1 --interval 60s"); // a Ctrl-C before that would discard the line being edited
                tmux.keys("C-c");
                long[] sentAt = {System.nanoTime()};
                tmux.await("the cancel", screen -> {
                    if (!screen.contains("(cancelled)") && System.nanoTime() - sentAt[0] > 2_000_000_000L) {
                        tmux.keys("C-c"); // the first one may have come while the line editor still held the terminal
                        sentAt[0] = System.nanoTime();
                    }
                    return screen.contains("(cancelled)");
                });
                assertTrue(System.nanoTime() - start < 50_000_000_000L);
                tmux.keys("C-l");
                tmux.type("threads --name spinner");
                tmux.keys("Enter");
                tmux.await("a command after the cancel", screen -> screen.contains("RUNNABLE") && screen.contains("  spinner\n"));
                tmux.await("the prompt", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));

                // watch redraws until Ctrl-C
                tmux.type("watch -n 1 threads --name holder");
                tmux.keys("Enter");
                String first = tmux.await("a watch screen", screen -> screen.startsWith("Every 1s: threads --name holder") && screen.contains("holder\n"));
                String clock = clock(first);
                tmux.await("a redraw", screen -> screen.startsWith("Every 1s:") && !clock(screen).equals(clock) && screen.contains("holder\n"));
                tmux.keys("C-c");
                tmux.await("the prompt after watch", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));

                // an error in red, and the exit code of the first failure
                tmux.type("threads --state NOPE");
                tmux.keys("Enter");
                tmux.awaitContains("unknown state 'NOPE'");
                assertTrue(tmux.screenWithEscapes().contains(RED + "jvmti-cli: unknown state 'NOPE'"), tmux.screenWithEscapes());
                tmux.await("the prompt after the error", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));
                tmux.keys("C-d");
                tmux.awaitContains("EXITED 2");
            }
            String history = Files.readString(dir.resolve(".jvmti-cli_history"));
            assertTrue(history.contains("threads --name sleeper") && history.contains("watch -n 1 threads --name holder"), history);

            // the history is there in the next run; Ctrl-R finds a line; NO_COLOR turns colour off
            try (Tmux tmux = Tmux.start(dir, shellCommand(jdk, target.pid(), "NO_COLOR=1"))) {
                tmux.await("the prompt", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));
                tmux.keys("Up");
                tmux.await("the last line from history", screen -> Tmux.lastLine(screen).equals(prompt + "threads --state NOPE"));
                tmux.keys("C-u", "C-r");
                tmux.type("watch -n");
                tmux.awaitContains("watch -n 1 threads --name holder");
                tmux.keys("C-g", "C-u");
                tmux.type("threads --state NOPE");
                tmux.keys("Enter");
                tmux.awaitContains("jvmti-cli: unknown state 'NOPE'");
                tmux.await("the prompt", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));
                String escapes = tmux.screenWithEscapes();
                assertFalse(escapes.contains(RED) || escapes.contains("\u001b[36m"), "no colour with NO_COLOR: " + escapes);
                tmux.type("help");
                tmux.keys("Enter");
                tmux.awaitContains("Keys: Tab completes");
                tmux.await("the prompt", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));
                tmux.type("exit");
                tmux.keys("Enter");
                tmux.awaitContains("EXITED 2");
            }
        }
    }

    private static String clock(String screen) {
        Matcher m = Pattern.compile("\\d\\d:\\d\\d:\\d\\d").matcher(screen.lines().findFirst().orElse(""));
        return m.find() ? m.group() : "";
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void anExitWithNoFailureIsZero(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, NamedTarget.class);
             Tmux tmux = Tmux.start(dir, shellCommand(jdk, target.pid(), ""))) {
            tmux.awaitContains(target.pid() + " NamedTarget>");
            tmux.type("threads --name main | grep main");
            tmux.keys("Enter");
            String screen = tmux.await("the main thread", s -> s.lines().anyMatch(l -> l.matches(" *\\d+ +java +\\d+ .* main")));
            assertEquals(1, screen.lines().filter(l -> !l.contains("NamedTarget>") && l.endsWith(" main")).count(), "only the row grep kept: " + screen);
            tmux.await("the prompt", s -> Tmux.lastLine(s).equals(target.pid() + " NamedTarget>"));
            tmux.keys("C-d");
            tmux.awaitContains("EXITED 0");
        }
    }

    @Test
    void tabCompletesVirtualThreadNamesToo() throws Exception {
        Jdks.Jdk jdk = Jdks.atLeast(21).orElseThrow(() -> new AssertionError("the build needs a JDK 21 or later for virtual threads"));
        try (TargetJvm target = TargetJvm.start(jdk, VirtualThreadsTarget.class);
             Tmux tmux = Tmux.start(dir, shellCommand(jdk, target.pid(), ""))) {
            String prompt = target.pid() + " VirtualThreadsTarget> ";
            tmux.await("the prompt", screen -> Tmux.lastLine(screen).equals(prompt.stripTrailing()));
            tmux.type("stacks --thread vt-rl");
            tmux.keys("Tab");
            tmux.await("a virtual thread's name completed", screen -> Tmux.lastLine(screen).equals(prompt + "stacks --thread vt-rl-parked"));
            tmux.keys("C-u");
            tmux.type("threads --name vt-sleep-1");
            tmux.keys("Tab");
            // vt-sleep-1 and vt-sleep-10 to -19: listed with what they are
            String listed = tmux.await("the virtual sleepers listed", screen -> screen.contains("vt-sleep-19"));
            assertTrue(Pattern.compile("vt-sleep-15 +\\(virtual, id \\d+, TIMED_WAITING\\)").matcher(listed).find(), listed);
            assertFalse(listed.contains("vt-sleep-2 "), "only those the prefix names: " + listed);
            tmux.keys("C-u");
            tmux.keys("C-d");
            tmux.awaitContains("EXITED 0");
        }
    }
}
