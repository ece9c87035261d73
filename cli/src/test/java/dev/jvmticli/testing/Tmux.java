package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real terminal for a test: a private tmux server (its own socket, killed at the end) running
 * one command in a detached session; keys go in with send-keys and the screen comes back with
 * capture-pane. Waits poll the screen until a deadline, never sleep a fixed time.
 */
public final class Tmux implements AutoCloseable {
    public static final Duration WAIT = Duration.ofSeconds(40);

    private final Path socket;

    private Tmux(Path socket) {
        this.socket = socket;
    }

    /** Starts command (a sh command line) in a 160x50 terminal. */
    public static Tmux start(Path dir, String command) {
        // a socket of its own: the server of a previous session in dir may still be on its way out
        Tmux tmux = new Tmux(dir.resolve("tmux-" + System.nanoTime() + ".sock"));
        Path config = dir.resolve("tmux.conf");
        try {
            Files.writeString(config, "set -g remain-on-exit on\n"); // a pane whose command died stays to be looked at
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        CommandLog.record("in a terminal", command);
        tmux.tmux("-f", config.toString(), "new-session", "-d", "-x", "160", "-y", "50", command);
        return tmux;
    }

    /** Sends keys as tmux names them ("Enter", "Tab", "C-c", "Up") or literal text. */
    public void keys(String... keys) {
        List<String> args = new ArrayList<>(List.of("send-keys", "-t", "0"));
        args.addAll(List.of(keys));
        tmux(args.toArray(String[]::new));
    }

    /** Sends text literally (no key names). */
    public void type(String text) {
        CommandLog.record("typed in a terminal", text);
        tmux("send-keys", "-t", "0", "-l", "--", text);
    }

    /** The screen as text. */
    public String screen() {
        return tmux("capture-pane", "-p", "-t", "0");
    }

    /** The row of the cursor, 0 at the top. */
    public int cursorRow() {
        return Integer.parseInt(tmux("display-message", "-p", "-t", "0", "#{cursor_y}").strip());
    }

    /** Waits until the line editor has taken a line typed and entered: the cursor left that line. */
    public void awaitEntered(String line) {
        await("'" + line + "' entered", screen -> {
            List<String> rows = screen.lines().toList();
            int cursor = cursorRow();
            return cursor > 0 && cursor <= rows.size() && rows.get(cursor - 1).endsWith(line);
        });
    }

    /** The screen with its colours as escape sequences. */
    public String screenWithEscapes() {
        return tmux("capture-pane", "-p", "-e", "-t", "0");
    }

    /** Polls the screen until condition holds; fails with the screen after WAIT. */
    public String await(String what, Predicate<String> condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String screen = screen();
        while (!condition.test(screen)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + WAIT.toSeconds() + " s for " + what + "; the screen:\n" + screen
                        + "\nthe threads of the pane's JVM:\n" + paneThreadDumps());
            }
            pause(100);
            screen = screen();
        }
        return screen;
    }

    public String awaitContains(String text) {
        return await("'" + text + "'", screen -> screen.contains(text));
    }

    /** The last line of the screen that is not blank. */
    public static String lastLine(String screen) {
        String[] lines = screen.stripTrailing().split("\n");
        return lines[lines.length - 1];
    }

    /** jstack of the JVMs the pane's command runs (its children), each with its own JDK's jstack. */
    private String paneThreadDumps() {
        String pane = tmux("display-message", "-p", "-t", "0", "#{pane_pid}").strip();
        String script = "for p in $(pgrep -P " + pane + "); do j=$(dirname \"$(readlink /proc/$p/exe)\")/jstack;"
                + " [ -x \"$j\" ] && timeout 20 \"$j\" $p; done";
        try {
            Process process = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(30, TimeUnit.SECONDS);
            return output;
        } catch (IOException e) {
            return "(none: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(none: interrupted)";
        }
    }

    public static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private String tmux(String... args) {
        List<String> command = new ArrayList<>(List.of("tmux", "-S", socket.toString()));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new AssertionError("tmux " + String.join(" ", args) + " failed: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        try {
            new ProcessBuilder("tmux", "-S", socket.toString(), "kill-server").redirectErrorStream(true).start().waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
