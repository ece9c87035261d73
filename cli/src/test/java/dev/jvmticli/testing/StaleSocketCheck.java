package dev.jvmticli.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Run by `mvn verify` after the integration tests (cli/pom.xml, post-integration-test): fails the
 * build if a socket of a JVM that is gone survives a `list`. Only sockets whose pid is dead both
 * before and after that `list` count, so JVMs of other builds on the machine, started or killed
 * meanwhile, change nothing.
 */
public final class StaleSocketCheck {
    private StaleSocketCheck() {
    }

    public static void main(String[] args) throws IOException {
        List<Path> before = socketsOfDeadPids();
        CliRun.Result list = CliRun.run("list");
        if (list.exit() != 0) {
            throw new IllegalStateException("list failed: " + list);
        }
        List<Path> after = socketsOfDeadPids();
        after.retainAll(before);
        System.out.println("stale sockets: " + before.size() + " of JVMs that are gone before list, " + after.size() + " after");
        if (!after.isEmpty()) {
            System.err.println("stale sockets survived list: " + after);
            System.exit(1);
        }
    }

    private static List<Path> socketsOfDeadPids() throws IOException {
        List<Path> dead = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(Path.of("/tmp"))) {
            for (Path dir : dirs.filter(d -> d.getFileName().toString().matches("\\.jvmti-cli-\\d+")).toList()) {
                try (Stream<Path> sockets = Files.list(dir)) {
                    sockets.filter(s -> s.getFileName().toString().matches("\\d+\\.sock"))
                            .filter(s -> !Files.exists(Path.of("/proc", s.getFileName().toString().replace(".sock", ""))))
                            .forEach(dead::add);
                } catch (IOException e) {
                    // another user's directory this user may not read
                }
            }
        }
        return dead;
    }
}
