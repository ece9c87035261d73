package dev.jvmticli.files;

import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A directory held open by descriptor, in which files are created, renamed and removed relative
 * to that descriptor: a name is always one component, no operation follows a link in it, a file
 * is only ever created new ({@code O_EXCL}), and no open blocks on a FIFO. What a directory is
 * (owner, mode) is read with {@code fstat} on the open descriptor, so a check holds for the
 * directory the operations act on, whatever is renamed or swapped in its place afterwards. Writes may be made with another user's
 * file-system credentials ({@link FileIdentity}), for the calling thread only.
 *
 * <p>The operations are JNI functions of the agent library, which this class loads into the CLI
 * (Java's NIO has no {@code mkdirat}, no non-blocking open, no per-thread credentials).
 */
public final class VerifiedDirectory implements AutoCloseable {
    private static final int AT_FDCWD = -100;

    private final int fd;
    private final Path path;
    private final FileIdentity identity;
    private final FileStatus status;
    private boolean closed;

    private VerifiedDirectory(int fd, Path path, FileIdentity identity) throws IOException {
        this.fd = fd;
        this.path = path;
        this.identity = identity;
        try {
            this.status = FileStatus.of(status(fd, null));
        } catch (IOException e) {
            closeDescriptor(fd);
            throw e;
        }
    }

    /**
     * Opens a directory by a path whose links are this process's own to trust: the CLI's own
     * /tmp, or a target's {@code /proc/<pid>/root} and {@code /proc/<pid>/cwd}, which are links to
     * follow. Never blocks: a FIFO in the way fails.
     */
    public static VerifiedDirectory openTrusted(Path path, FileIdentity identity) throws IOException {
        try {
            Natives.load();
        } catch (LinkageError e) { // ExceptionInInitializerError, UnsatisfiedLinkError, NoClassDefFoundError after either
            throw new IOException("cannot load the agent library into the CLI for its file operations: " + e, e);
        }
        return new VerifiedDirectory(openDirectory(AT_FDCWD, path.toString(), true), path, identity);
    }

    /** The subdirectory of that name; a link, a FIFO or anything but a directory fails. */
    public VerifiedDirectory subdirectory(String name) throws IOException {
        return new VerifiedDirectory(openDirectory(fd, component(name), false), path.resolve(name), identity);
    }

    /** The same directory, opened again, to be written in with other credentials. */
    public VerifiedDirectory withIdentity(FileIdentity other) throws IOException {
        return new VerifiedDirectory(openDirectory(fd, ".", true), path, other);
    }

    /** The directory as it was when opened. */
    public FileStatus status() {
        return status;
    }

    /** An entry, not following a link; null when there is none. */
    public FileStatus statusOf(String name) throws IOException {
        return FileStatus.of(status(fd, component(name)));
    }

    /** The path it was opened by, for messages and for paths given to another process. */
    public Path path() {
        return path;
    }

    /** The uid files created here get: the identity's, or this process's. */
    public int creatorUid() {
        return identity.isSelf() ? processUid() : identity.uid();
    }

    /** Creates a subdirectory with that mode (less the umask); false when the name exists already. */
    public boolean makeDirectory(String name, int mode) throws IOException {
        return makeDirectory(fd, component(name), mode, identity.uid(), identity.gid());
    }

    /** Creates a new file with that content, then sets its mode on the descriptor; false when the name exists. */
    public boolean createFile(String name, byte[] content, int mode) throws IOException {
        return createFile(fd, component(name), content, mode, identity.uid(), identity.gid());
    }

    /** Sets this directory's mode on its descriptor. */
    public void changeMode(int mode) throws IOException {
        changeMode(fd, mode, identity.uid(), identity.gid());
    }

    /** Renames an entry within this directory, replacing whatever the new name held. */
    public void rename(String from, String to) throws IOException {
        rename(fd, component(from), component(to), identity.uid(), identity.gid());
    }

    /** Removes an entry that is not a directory (a link itself, not what it points to); false when there was none. */
    public boolean delete(String name) throws IOException {
        return delete(fd, component(name), identity.uid(), identity.gid());
    }

    /** A regular file's content, at most limit bytes; null when there is no such entry; an exception for anything else. */
    public byte[] readRegularFile(String name, int limit) throws IOException {
        return readRegularFile(fd, component(name), limit);
    }

    /**
     * A path to an entry that goes through this descriptor ({@code /proc/self/fd/N/name}), for
     * calls that take a path only (connecting to a UNIX socket): valid while this is open.
     */
    public Path throughDescriptor(String name) {
        return Path.of("/proc/self/fd", Integer.toString(fd), component(name));
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            closeDescriptor(fd);
        }
    }

    /** The effective uid of this process. */
    public static int processUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read this process's uid from /proc/self", e);
        }
    }

    private static String component(String name) {
        if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a single file name: " + name);
        }
        return name;
    }

    private static native int openDirectory(int dir, String name, boolean follow) throws IOException;

    private static native void closeDescriptor(int fd);

    private static native long[] status(int dir, String name) throws IOException;

    private static native boolean makeDirectory(int dir, String name, int mode, int uid, int gid) throws IOException;

    private static native boolean createFile(int dir, String name, byte[] content, int mode, int uid, int gid) throws IOException;

    private static native void changeMode(int dir, int mode, int uid, int gid) throws IOException;

    private static native void rename(int dir, String from, String to, int uid, int gid) throws IOException;

    private static native boolean delete(int dir, String name, int uid, int gid) throws IOException;

    private static native byte[] readRegularFile(int dir, String name, int limit) throws IOException;

    /** The agent library, loaded into this process once (its copy in this CLI's own /tmp). */
    private static final class Natives {
        private static final Path LIBRARY = extracted();

        static {
            System.load(LIBRARY.toString());
        }

        private static Path extracted() {
            try {
                return new AgentLibrary().extract();
            } catch (IOException e) {
                throw new IllegalStateException("cannot extract the agent library: " + e.getMessage(), e);
            }
        }

        static void load() {
            // the work is done by the class's initialisation, once
        }
    }
}
