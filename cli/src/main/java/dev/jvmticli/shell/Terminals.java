package dev.jvmticli.shell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the process's standard streams are connected to, without a native library. */
final class Terminals {
    private Terminals() {
    }

    /** Whether file descriptor fd (0, 1, 2) of this process is a terminal. */
    static boolean isTerminal(int fd) {
        try {
            String device = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty") || device.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** Whether to colour what goes to fd: a terminal that is not dumb, and NO_COLOR unset (no-color.org). */
    static boolean colour(int fd) {
        String noColor = System.getenv("NO_COLOR");
        String term = System.getenv("TERM");
        return (noColor == null || noColor.isEmpty()) && term != null && !term.equals("dumb") && isTerminal(fd);
    }
}
