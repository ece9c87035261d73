package dev.jvmticli.payload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;

/**
 * Hands out a library this jar carries as a file another JVM can load: the agent, or the
 * profiling engine the agent loads for {@code profile} (async-profiler's library, which the agent
 * also checks against the SHA-256 pinned at build time before loading it).
 *
 * <p>The file lives in {@code <tmp>/.jvmti-cli-lib-<uid>/<name>-<sha256>.so}: the directory
 * belongs to the current user and is writable by nobody else (mode 0755, so a target running as
 * another user can still read the library); an existing directory that is a link, or that anyone
 * else could write to, is refused. The file is written under a fresh temporary name with
 * {@code CREATE_NEW} and {@code NOFOLLOW_LINKS}, made read-only, then renamed into place; an
 * existing file is used only after its content hash is checked again. It is never deleted on
 * exit: a target JVM keeps it mapped after this process is gone.
 */
public final class AgentLibrary {
    private static final String AGENT = "libjvmticli";
    private static final String PROFILER = "libasyncProfiler";
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("r--r--r--");

    private final Path directory;
    private final int uid;
    private final String name;

    private AgentLibrary(Path baseDirectory, String name) {
        this.uid = currentUid();
        this.directory = baseDirectory.resolve(".jvmti-cli-lib-" + uid);
        this.name = name;
    }

    /** The agent library handed out under the given base directory (normally {@code java.io.tmpdir}). */
    public AgentLibrary(Path baseDirectory) {
        this(baseDirectory, AGENT);
    }

    public AgentLibrary() {
        this(defaultBase());
    }

    /** The profiling engine's library, handed out under the given base directory. */
    public static AgentLibrary profiler(Path baseDirectory) {
        return new AgentLibrary(baseDirectory, PROFILER);
    }

    public static AgentLibrary profiler() {
        return profiler(defaultBase());
    }

    /** Where libraries are handed out unless told otherwise: {@code java.io.tmpdir}. */
    public static Path defaultBase() {
        return Path.of(System.getProperty("java.io.tmpdir", "/tmp"));
    }

    /** The platform directory name the build uses, such as {@code linux-x86_64}. */
    public static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux") ? "linux" : "unsupported";
        String arch = System.getProperty("os.arch", "");
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            arch = "x86_64";
        } else if (arch.equals("aarch64") || arch.equals("arm64")) {
            arch = "aarch64";
        }
        return os + "-" + arch;
    }

    /** Returns the path of a verified copy of the library, extracting it if needed. */
    public Path extract() throws IOException {
        byte[] content = bundledLibrary();
        String hash = sha256(content);
        ensurePrivateDirectory();
        Path target = directory.resolve(name + "-" + hash.substring(0, 32) + ".so");
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            if (isRegularOwnedFile(target) && hash.equals(sha256(readNoFollow(target)))) {
                return target;
            }
            Files.delete(target);
        }
        Path temporary = directory.resolve(name + "-" + hash.substring(0, 32) + "." + ProcessHandle.current().pid() + ".tmp");
        Files.deleteIfExists(temporary);
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
        Files.setPosixFilePermissions(temporary, FILE_MODE);
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException raced) {
            Files.deleteIfExists(temporary);
        }
        if (!isRegularOwnedFile(target) || !hash.equals(sha256(readNoFollow(target)))) {
            throw new IOException("library at " + target + " does not match the bundled one");
        }
        return target;
    }

    private void ensurePrivateDirectory() throws IOException {
        try {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
        } catch (FileAlreadyExistsException exists) {
            // checked below, whoever made it
        }
        PosixFileAttributes attributes = Files.readAttributes(directory, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> mode = attributes.permissions();
        if (!attributes.isDirectory()
                || (int) Files.getAttribute(directory, "unix:uid", LinkOption.NOFOLLOW_LINKS) != uid
                || mode.contains(PosixFilePermission.GROUP_WRITE)
                || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException("refusing to use " + directory + ": it must be a directory of uid " + uid
                    + " that nobody else can write to");
        }
        Files.setPosixFilePermissions(directory, DIRECTORY_MODE);
    }

    private static boolean isRegularOwnedFile(Path file) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return attributes.isRegularFile() && !attributes.permissions().contains(PosixFilePermission.OTHERS_WRITE)
                && !attributes.permissions().contains(PosixFilePermission.GROUP_WRITE);
    }

    private static byte[] readNoFollow(Path file) throws IOException {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) in.size());
            while (buffer.hasRemaining()) {
                if (in.read(buffer) < 0) {
                    throw new IOException("short read of " + file);
                }
            }
            return buffer.array();
        }
    }

    private byte[] bundledLibrary() throws IOException {
        String resource = "/dev/jvmticli/native/" + platform() + "/" + name + ".so";
        try (InputStream in = AgentLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("this build carries no " + name + ".so for " + platform());
            }
            return in.readAllBytes();
        }
    }

    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static int currentUid() {
        try {
            return (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read this process's uid from /proc/self", e);
        }
    }
}
