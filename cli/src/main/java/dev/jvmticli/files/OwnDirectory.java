package dev.jvmticli.files;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

/**
 * A directory of the running user that no one else can write, opened once: its last component
 * without following a link (openat with O_NOFOLLOW) and its owner and mode checked on the open
 * descriptor. Files are created in it relative to that descriptor, new (O_EXCL|O_NOFOLLOW) and
 * 0600, renamed within it or out to the directory it was opened from, and read only when they are
 * regular files reached without a link: nothing is done by a path another user could redirect
 * between a check and a write. (Java's SecureDirectoryStream is this openat family on Linux.)
 */
public final class OwnDirectory implements Closeable {
    private static final FileAttribute<Set<PosixFilePermission>> DIRECTORY_MODE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    private static final FileAttribute<Set<PosixFilePermission>> FILE_MODE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path path;
    private final SecureDirectoryStream<Path> directory;
    /** The directory this one was opened from: where {@link #moveOut} renames to. */
    private final SecureDirectoryStream<Path> parent;

    private OwnDirectory(Path path, SecureDirectoryStream<Path> directory, SecureDirectoryStream<Path> parent) {
        this.path = path;
        this.directory = directory;
        this.parent = parent;
    }

    /**
     * Opens dir, first made 0700 (with any missing parents, each made 0700 and checked the same
     * way) when it is missing. Refuses, with an UnsafePathException, a directory that is a link,
     * is not the running user's, or that a group or others can write. Existing parents are the
     * person's choice of path and are followed as given.
     */
    public static OwnDirectory open(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath().normalize();
        if (absolute.getFileName() == null) {
            throw new UnsafePathException(absolute + " is the root directory");
        }
        Deque<Path> missing = new ArrayDeque<>();
        Path existing = absolute;
        while (existing.getParent() != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            missing.push(existing.getFileName());
            existing = existing.getParent();
        }
        if (missing.isEmpty()) {
            missing.push(absolute.getFileName());
            existing = absolute.getParent();
        }
        UserPrincipal user = Owners.runningUser();
        SecureDirectoryStream<Path> parent = openByPath(existing);
        Path parentPath = existing;
        try {
            while (true) {
                Path name = missing.pop();
                Path child = parentPath.resolve(name);
                makeDirectory(parent, name);
                SecureDirectoryStream<Path> opened = openChild(parent, child, name, user);
                if (missing.isEmpty()) {
                    return new OwnDirectory(child, opened, parent);
                }
                parent.close();
                parent = opened;
                parentPath = child;
            }
        } catch (IOException | RuntimeException e) {
            parent.close();
            throw e;
        }
    }

    public Path path() {
        return path;
    }

    /** True when the directory has no entry. */
    public boolean isEmpty() {
        return !directory.iterator().hasNext();
    }

    /** The subdirectory name, made 0700 when missing, opened and checked as {@link #open} does. */
    public OwnDirectory subdirectory(String name) throws IOException {
        Path child = path.resolve(checkedName(name));
        makeDirectory(directory, Path.of(name));
        return new OwnDirectory(child, openChild(directory, child, Path.of(name), Owners.runningUser()), null);
    }

    /** A new file name, 0600, created with O_CREAT|O_EXCL|O_NOFOLLOW in this directory. */
    public OutputStream createNew(String name) throws IOException {
        return Channels.newOutputStream(directory.newByteChannel(Path.of(checkedName(name)),
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), FILE_MODE));
    }

    /** Reads the regular file name, opened without following a link; refuses anything else. */
    public InputStream openRegularFile(String name) throws IOException {
        Path file = Path.of(checkedName(name));
        BasicFileAttributes attributes = directory.getFileAttributeView(file, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .readAttributes();
        if (!attributes.isRegularFile()) {
            throw new UnsafePathException(path.resolve(name) + " is not a regular file");
        }
        return Channels.newInputStream(directory.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)));
    }

    /** Renames from to to within this directory (renameat: an entry to is replaced, never followed). */
    public void rename(String from, String to) throws IOException {
        directory.move(Path.of(checkedName(from)), directory, Path.of(checkedName(to)));
    }

    /** Renames from to to in the directory this one was opened from. */
    public void moveOut(String from, String to) throws IOException {
        if (parent == null) {
            throw new IllegalStateException("a subdirectory moves nothing out");
        }
        directory.move(Path.of(checkedName(from)), parent, Path.of(checkedName(to)));
    }

    public void delete(String name) throws IOException {
        directory.deleteFile(Path.of(checkedName(name)));
    }

    @Override
    public void close() throws IOException {
        try {
            directory.close();
        } finally {
            if (parent != null) {
                parent.close();
            }
        }
    }

    /**
     * Makes the directory name 0700 in parent, unless something of that name is there already
     * (the checks on opening it decide). Java has no mkdirat: the directory is made through
     * /proc/self/fd/N, N being a descriptor of the open parent (found by its device and inode),
     * so that no path another user could redirect is followed; mkdir itself never follows a link
     * in its last component.
     */
    private static void makeDirectory(SecureDirectoryStream<Path> parent, Path name) throws IOException {
        Object parentKey = parent.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
        Path descriptor = null;
        try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path each : descriptors) {
                try {
                    if (parentKey.equals(Files.readAttributes(each, BasicFileAttributes.class).fileKey())) {
                        descriptor = each;
                        break;
                    }
                } catch (IOException e) {
                    // a descriptor closed meanwhile by another thread: not the parent, which is open
                }
            }
        }
        if (descriptor == null) {
            throw new IOException("cannot find the open directory among /proc/self/fd");
        }
        try {
            Files.createDirectory(descriptor.resolve(name), DIRECTORY_MODE);
        } catch (FileAlreadyExistsException e) {
            // the one asked for, or made meanwhile by someone: the checks on opening it decide
        }
    }

    private static SecureDirectoryStream<Path> openByPath(Path dir) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        stream.close();
        throw new UnsafePathException("this platform cannot open files relative to a directory (no SecureDirectoryStream)");
    }

    /** Opens name in parent without following a link and checks it is a directory of user that no one else can write. */
    private static SecureDirectoryStream<Path> openChild(SecureDirectoryStream<Path> parent, Path child, Path name, UserPrincipal user)
            throws IOException {
        BasicFileAttributes entry = parent.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .readAttributes();
        if (entry.isSymbolicLink()) {
            throw new UnsafePathException(child + " is a symbolic link (not followed)");
        }
        if (!entry.isDirectory()) {
            // not opened at all: opening a FIFO would block
            throw new UnsafePathException(child + " is not a directory");
        }
        SecureDirectoryStream<Path> opened;
        try {
            opened = parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
        } catch (NotDirectoryException e) {
            throw new UnsafePathException(child + " is not a directory");
        } catch (FileSystemException e) {
            if (Files.isSymbolicLink(child)) {
                throw new UnsafePathException(child + " is a symbolic link (not followed)");
            }
            throw e;
        }
        try {
            PosixFileAttributes attributes = opened.getFileAttributeView(PosixFileAttributeView.class).readAttributes();
            if (!attributes.owner().equals(user)) {
                throw new UnsafePathException(child + " belongs to user " + attributes.owner().getName() + ", not to "
                        + user.getName() + " who runs jvmti-cli");
            }
            if (Owners.writableByOthers(attributes)) {
                throw new UnsafePathException(child + " can be written by others (mode "
                        + PosixFilePermissions.toString(attributes.permissions()) + ")");
            }
            return opened;
        } catch (IOException | RuntimeException e) {
            opened.close();
            throw e;
        }
    }

    private static String checkedName(String name) {
        if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("not a name in a directory: " + name);
        }
        return name;
    }
}
