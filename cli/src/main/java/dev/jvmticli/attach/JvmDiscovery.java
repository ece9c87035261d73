package dev.jvmticli.attach;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Finds the local JVMs this user can look at by reading {@code /proc}: a process is a JVM when it
 * maps {@code libjvm.so}. Nothing is attached to and nothing is sent to any process, so JVMs that
 * disabled perf data ({@code -XX:-UsePerfData}) or run in a container are found too.
 */
public final class JvmDiscovery {
    /** Launcher options that take the next argument as their value. */
    private static final Set<String> OPTIONS_WITH_VALUE = Set.of(
            "-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path", "--add-modules",
            "--limit-modules", "--add-reads", "--add-exports", "--add-opens", "--patch-module", "--enable-native-access",
            "--source", "--describe-module", "-d");

    private JvmDiscovery() {
    }

    /** Every JVM found, by pid, except this CLI's own. */
    public static List<LocalJvm> scan() {
        long self = ProcessHandle.current().pid();
        List<LocalJvm> found = new ArrayList<>();
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), JvmDiscovery::isPid)) {
            for (Path dir : proc) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid != self) {
                    describe(pid).ifPresent(found::add);
                }
            }
        } catch (IOException e) {
            throw new CliFailure(ExitCode.FAILURE, "cannot read /proc: " + e.getMessage(), e);
        }
        found.sort(Comparator.comparingLong(LocalJvm::pid));
        return found;
    }

    /**
     * The JVM named by a fragment of its main class or jar (as {@code jcmd} takes them): the one
     * whose main contains it, or among several, the one whose main or short name equals it.
     */
    public static LocalJvm byName(String fragment) {
        List<LocalJvm> matches = scan().stream().filter(jvm -> jvm.main().contains(fragment)).toList();
        if (matches.size() > 1) {
            List<LocalJvm> exact = matches.stream()
                    .filter(jvm -> jvm.main().equals(fragment) || jvm.shortName().equals(fragment)).toList();
            if (exact.size() == 1) {
                return exact.get(0);
            }
        }
        if (matches.isEmpty()) {
            throw new CliFailure(ExitCode.USAGE, "'" + fragment + "' is not a process id, and no JVM's main class or jar contains it (see jvmti-cli list)");
        }
        if (matches.size() > 1) {
            throw new CliFailure(ExitCode.USAGE, "'" + fragment + "' matches " + matches.size() + " JVMs, give a pid: "
                    + matches.stream().map(jvm -> jvm.pid() + " (" + jvm.main() + ")").collect(Collectors.joining(", ")));
        }
        return matches.get(0);
    }

    private static boolean isPid(Path dir) {
        String name = dir.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** The JVM with that pid, or empty when it is not a JVM, has gone, or may not be looked at. */
    public static Optional<LocalJvm> describe(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            String libjvm = mappedLibjvm(proc);
            if (libjvm == null) {
                return Optional.empty();
            }
            List<String> status = Files.readAllLines(proc.resolve("status"));
            TargetProcess process = TargetProcess.fromStatus(pid, status);
            List<String> argv = commandLine(proc);
            Instant started = ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).orElse(null);
            return Optional.of(new LocalJvm(process, mainOf(argv), jdkVersion(process.root(), libjvm), started));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // gone meanwhile, or not ours to read
        }
    }

    /** The path of the libjvm.so the process maps, or null. */
    private static String mappedLibjvm(Path proc) throws IOException {
        String maps = new String(Files.readAllBytes(proc.resolve("maps")), StandardCharsets.ISO_8859_1);
        int end = maps.indexOf("/libjvm.so\n");
        if (end < 0) {
            return null;
        }
        int lineStart = maps.lastIndexOf('\n', end) + 1;
        String path = maps.substring(maps.indexOf('/', lineStart), end + "/libjvm.so".length());
        return new String(path.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    private static List<String> commandLine(Path proc) throws IOException {
        String raw = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
        List<String> argv = new ArrayList<>(List.of(raw.split("\0")));
        argv.removeIf(String::isEmpty);
        return argv;
    }

    /** What the launcher was asked to run: a main class, a jar, a module, or a source file. */
    static String mainOf(List<String> argv) {
        if (argv.isEmpty()) {
            return "?";
        }
        String launcher = argv.get(0).substring(argv.get(0).lastIndexOf('/') + 1);
        if (!launcher.equals("java") && !launcher.equals("javaw")) {
            return launcher; // jshell, a jpackage'd app or another embedding launcher
        }
        for (int i = 1; i < argv.size(); i++) {
            String arg = argv.get(i);
            if (arg.equals("-jar") || arg.equals("-m") || arg.equals("--module")) {
                return i + 1 < argv.size() ? argv.get(i + 1) : "?";
            }
            if (arg.startsWith("--module=")) {
                return arg.substring("--module=".length());
            }
            if (OPTIONS_WITH_VALUE.contains(arg)) {
                i++;
            } else if (!arg.startsWith("-") && !arg.startsWith("@")) {
                return arg;
            }
        }
        return "?";
    }

    /**
     * JAVA_VERSION from the release file of the JDK whose libjvm.so the process maps, read only
     * where no other user could have put something else (see {@link #nobodyElseControls}): any
     * process may map a file named libjvm.so, next to a FIFO or a link named release.
     */
    static String jdkVersion(Path root, String libjvm) {
        Path dir = Path.of(libjvm).getParent();
        for (int up = 0; dir != null && up < 4; up++, dir = dir.getParent()) { // lib/server/libjvm.so, or jre/lib/amd64/server
            Path relative = Path.of("/").relativize(dir.resolve("release"));
            for (Path base : List.of(root, Path.of("/"))) {
                if (!nobodyElseControls(base, relative)) {
                    continue;
                }
                try (var in = Files.newBufferedReader(base.resolve(relative.toString()), StandardCharsets.UTF_8)) {
                    Properties properties = new Properties();
                    properties.load(in);
                    String version = properties.getProperty("JAVA_VERSION");
                    if (version != null) {
                        return version.replace("\"", "");
                    }
                } catch (IOException e) {
                    // not here; look further up
                }
            }
        }
        return null;
    }

    /**
     * Whether base and each step of relative below it belong to root or this user, none is a link,
     * and none lets another user replace what it holds (writable by others only if sticky), the
     * last being a regular file: then no other user can make an open of it block or go elsewhere.
     */
    static boolean nobodyElseControls(Path base, Path relative) {
        int self = ownUid();
        Path path = base;
        try {
            if (!trusted(Files.readAttributes(base, PosixFileAttributes.class), (int) Files.getAttribute(base, "unix:uid"),
                    (int) Files.getAttribute(base, "unix:mode"), self, true)) {
                return false;
            }
            for (int i = 0; i < relative.getNameCount(); i++) {
                path = path.resolve(relative.getName(i).toString());
                boolean last = i == relative.getNameCount() - 1;
                PosixFileAttributes attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                int owner = (int) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                int mode = (int) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
                if (!trusted(attributes, owner, mode, self, !last)) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean trusted(PosixFileAttributes attributes, int owner, int mode, int self, boolean directory) {
        boolean ownersKind = directory ? attributes.isDirectory() : attributes.isRegularFile();
        boolean othersMayReplace = directory && (mode & 0022) != 0 && (mode & 01000) == 0;
        return ownersKind && (owner == 0 || owner == self) && !othersMayReplace;
    }

    private static int ownUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            return -1; // unknown: trust root's files alone
        }
    }
}
