package dev.jvmticli.attach;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.files.FileIdentity;
import dev.jvmticli.files.VerifiedDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.List;
import java.util.StringTokenizer;

/**
 * A local process that may be a JVM, as {@code /proc} describes it.
 *
 * @param pid   the pid in this CLI's pid namespace
 * @param nsPid the pid the process knows itself by (differs inside a container)
 * @param uid   the effective uid the process runs as
 * @param gid   the effective gid the process runs as
 * @param root  the process's root directory as seen from here ({@code /proc/<pid>/root})
 */
public record TargetProcess(long pid, long nsPid, int uid, int gid, Path root) {
    /** Every HotSpot JVM runs a native thread of this name (its OS name, /proc/<pid>/task/<tid>/comm). */
    private static final String JVM_THREAD = "VM Thread";
    private static final byte[] LIBJVM_LINE_END = "/libjvm.so\n".getBytes(StandardCharsets.US_ASCII);

    /** Checks that pid names a live JVM this user may look at. */
    public static TargetProcess of(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        List<String> status;
        try {
            status = Files.readAllLines(proc.resolve("status"));
        } catch (NoSuchFileException e) {
            throw new CliFailure(ExitCode.NO_SUCH_PROCESS, "no process with pid " + pid);
        } catch (IOException e) {
            throw new CliFailure(ExitCode.NO_SUCH_PROCESS, "cannot read /proc/" + pid + "/status: " + e.getMessage());
        }
        if (field(status, "State:").startsWith("Z")) {
            throw new CliFailure(ExitCode.NO_SUCH_PROCESS, "process " + pid + " has exited (zombie)");
        }
        if (!mapsJvm(proc, pid, status)) {
            throw new CliFailure(ExitCode.NOT_A_JVM, "process " + pid + " is not a JVM (no libjvm.so mapped)");
        }
        return fromStatus(pid, status);
    }

    /** The process as its /proc/<pid>/status lines describe it, checked to be a JVM by the caller. */
    static TargetProcess fromStatus(long pid, List<String> status) {
        int uid = effectiveUid(status);
        int gid = Integer.parseInt(words(field(status, "Gid:"))[1]);
        String[] nsPids = words(field(status, "NSpid:"));
        long nsPid = nsPids.length == 0 || nsPids[0].isEmpty() ? pid : Long.parseLong(nsPids[nsPids.length - 1]);
        return new TargetProcess(pid, nsPid, uid, gid, Path.of("/proc", Long.toString(pid), "root"));
    }

    /** The agent's socket for this process, as the agent names it inside the target's /tmp. */
    public Path socketPath() {
        return root.resolve("tmp").resolve(".jvmti-cli-" + uid).resolve(nsPid + ".sock");
    }

    /**
     * Whether the process finds this CLI's file at the same path: its root is this CLI's, and
     * nothing else is mounted there for it. When it does not (a container, a chroot, a private
     * /tmp), a file it is to open must be placed under {@link #root()}. Compared by device and
     * inode; anything unreadable counts as not the same.
     */
    public boolean seesSameFile(Path file) {
        try {
            Object ours = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            Object its = Files.readAttributes(root.resolve(Path.of("/").relativize(file.toAbsolutePath()).toString()),
                    BasicFileAttributes.class).fileKey();
            return ours != null && ours.equals(its);
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    /**
     * Whose file-system credentials the CLI creates files with in the process's directories: its
     * user's when the CLI runs as root and the process does not, so that a link or a swap that
     * user plants can reach only what that user could write anyway; else the CLI's own.
     */
    public FileIdentity fileIdentity() {
        return VerifiedDirectory.processUid() == 0 && uid != 0 ? new FileIdentity(uid, gid) : FileIdentity.SELF;
    }

    /** Whether the process is in another user namespace than this CLI (unknown counts as not). */
    public boolean inAnotherUserNamespace() {
        try {
            return !Files.readSymbolicLink(Path.of("/proc/self/ns/user"))
                    .equals(Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "user")));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    public boolean isAlive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static boolean mapsJvm(Path proc, long pid, List<String> status) {
        try (InputStream maps = Files.newInputStream(proc.resolve("maps"))) {
            return mapsLibjvm(maps);
        } catch (AccessDeniedException e) {
            throw unreadableMaps(proc, pid, status);
        } catch (NoSuchFileException e) {
            throw new CliFailure(ExitCode.NO_SUCH_PROCESS, "no process with pid " + pid);
        } catch (IOException e) {
            throw new CliFailure(ExitCode.PERMISSION_DENIED, "cannot read /proc/" + pid + "/maps: " + e.getMessage());
        }
    }

    /**
     * Whether a line of maps ends with {@code /libjvm.so}, looked for in the bytes: a JVM of 2,000
     * threads has 4,000 lines of maps, and the shell checks its target before every command.
     */
    static boolean mapsLibjvm(InputStream maps) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        int kept = 0; // the end of the last read, where a line ending in libjvm may have begun
        int n;
        while ((n = maps.read(buffer, kept, buffer.length - kept)) > 0) {
            int end = kept + n;
            if (contains(buffer, end, LIBJVM_LINE_END)) {
                return true;
            }
            kept = Math.min(end, LIBJVM_LINE_END.length - 1);
            System.arraycopy(buffer, end - kept, buffer, 0, kept);
        }
        return false;
    }

    /** Whether bytes[0..length) hold lineEnd, which ends with a newline: compared at each newline. */
    private static boolean contains(byte[] bytes, int length, byte[] lineEnd) {
        for (int end = lineEnd.length; end <= length; end++) {
            if (bytes[end - 1] == '\n' && Arrays.equals(bytes, end - lineEnd.length, end, lineEnd, 0, lineEnd.length)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why /proc/<pid>/maps could not be read, as far as can be told: another user's process; or,
     * for one of this user's (or root's), whether its threads' names are a HotSpot JVM's.
     */
    private static CliFailure unreadableMaps(Path proc, long pid, List<String> status) {
        int self = ownUid();
        int uid = effectiveUid(status);
        if (self != 0 && self != uid) {
            return new CliFailure(ExitCode.PERMISSION_DENIED, "permission denied reading /proc/" + pid + "/maps: attach as the JVM's user or root");
        }
        String denied = "the system denies reading /proc/" + pid + "/maps even to " + (self == 0 ? "root" : "its user");
        List<String> threads = threadNames(proc);
        if (threads == null) {
            return new CliFailure(ExitCode.PERMISSION_DENIED, "cannot tell whether process " + pid + " is a JVM: " + denied
                    + ", and the names of its threads");
        }
        if (threads.contains(JVM_THREAD)) {
            return new CliFailure(ExitCode.PERMISSION_DENIED, "process " + pid + " is a JVM, but " + denied);
        }
        return new CliFailure(ExitCode.NOT_A_JVM, "process " + pid + " is not a JVM: none of its " + threads.size()
                + " threads is a JVM's (" + denied + ")");
    }

    private static List<String> threadNames(Path proc) {
        try (var tasks = Files.list(proc.resolve("task"))) {
            List<String> names = new java.util.ArrayList<>();
            for (Path task : tasks.toList()) {
                try {
                    names.add(Files.readString(task.resolve("comm")).strip());
                } catch (NoSuchFileException exited) {
                    // the thread ended while the list was read
                }
            }
            return names;
        } catch (IOException | java.io.UncheckedIOException e) {
            return null;
        }
    }

    private static int ownUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            return -1;
        }
    }

    private static int effectiveUid(List<String> status) {
        return Integer.parseInt(words(field(status, "Uid:"))[1]);
    }

    // Loops, neither streams nor a regex: every command runs this, and each lambda's first use, as
    // the first Pattern, costs its cold start (see ThreadsCommand#BY_ID).
    private static String field(List<String> status, String name) {
        for (String line : status) {
            if (line.startsWith(name)) {
                return line.substring(name.length()).trim();
            }
        }
        return "";
    }

    /** The whitespace-separated words of a field's value; none of an empty one. */
    private static String[] words(String value) {
        StringTokenizer tokens = new StringTokenizer(value);
        String[] words = new String[tokens.countTokens()];
        for (int i = 0; i < words.length; i++) {
            words[i] = tokens.nextToken();
        }
        return words;
    }
}
