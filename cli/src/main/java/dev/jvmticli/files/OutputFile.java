package dev.jvmticli.files;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A file a person names for output ({@code --html FILE}, the shell's {@code > FILE} and
 * {@code >> FILE}), opened relative to its directory, opened once, and never through a link in its
 * last component. A new file is created with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0666 less the umask,
 * as a shell makes it). An existing one is truncated or appended to only when it is a regular file
 * of the running user with one hard link, in a directory of that user or root that no one else can
 * change (not writable by others, or sticky as /tmp is): no one else can then swap it between the
 * check and the open. Anything else is refused with an UnsafePathException that says why.
 */
public final class OutputFile {
    /** The sticky bit of st_mode: in such a directory only an entry's owner may rename or remove it. */
    private static final int STICKY = 01000;

    private OutputFile() {
    }

    /** Opens file for writing from its start (truncating it) or, with append, at its end. */
    public static OutputStream open(Path file, boolean append) throws IOException {
        Path absolute = file.toAbsolutePath().normalize();
        Path name = nameOf(absolute);
        try (SecureDirectoryStream<Path> directory = openParent(absolute)) {
            Set<OpenOption> create = new HashSet<>(Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
            if (append) {
                create.add(StandardOpenOption.APPEND);
            }
            try {
                return Channels.newOutputStream(directory.newByteChannel(name, create));
            } catch (FileAlreadyExistsException e) {
                // an existing entry: written only under the rule above
            }
            checkExisting(directory, absolute, name);
            Set<OpenOption> existing = Set.of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS,
                    append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING);
            return Channels.newOutputStream(directory.newByteChannel(name, existing));
        }
    }

    /**
     * Refuses file now, as {@link #open} would, without creating anything: for a command that
     * writes it only after a long wait (a profile's page), so that the refusal does not come at
     * the end. open checks again.
     */
    public static void checkAhead(Path file) throws IOException {
        Path absolute = file.toAbsolutePath().normalize();
        Path name = nameOf(absolute);
        try (SecureDirectoryStream<Path> directory = openParent(absolute)) {
            try {
                directory.getFileAttributeView(name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
            } catch (NoSuchFileException e) {
                return;
            }
            checkExisting(directory, absolute, name);
        }
    }

    private static Path nameOf(Path absolute) throws UnsafePathException {
        if (absolute.getFileName() == null) {
            throw new UnsafePathException(absolute + " is a directory");
        }
        return Path.of(absolute.getFileName().toString());
    }

    private static SecureDirectoryStream<Path> openParent(Path absolute) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(absolute.getParent());
        if (stream instanceof SecureDirectoryStream<Path> directory) {
            return directory;
        }
        stream.close();
        throw new UnsafePathException("this platform cannot open files relative to a directory (no SecureDirectoryStream)");
    }

    /** What the operating system said, without the path a message names already. */
    public static String reason(IOException e) {
        if (!(e instanceof FileSystemException f)) {
            return e.getMessage();
        }
        if (f.getReason() != null) {
            return f.getReason();
        }
        // the subclasses Java throws for these errno values carry no reason, only the path
        if (f instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (f instanceof AccessDeniedException) {
            return "Permission denied";
        }
        if (f instanceof NotDirectoryException) {
            return "Not a directory";
        }
        if (f instanceof FileAlreadyExistsException) {
            return "File exists";
        }
        return f.getMessage();
    }

    private static void checkExisting(SecureDirectoryStream<Path> directory, Path absolute, Path name) throws IOException {
        UserPrincipal user = Owners.runningUser();
        PosixFileAttributes attributes = directory.getFileAttributeView(name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .readAttributes();
        if (attributes.isSymbolicLink()) {
            throw new UnsafePathException(absolute + " is a symbolic link (not followed): remove it or choose another name");
        }
        if (!attributes.isRegularFile()) {
            throw new UnsafePathException(absolute + " exists and is not a regular file");
        }
        if (!attributes.owner().equals(user)) {
            throw new UnsafePathException(absolute + " belongs to user " + attributes.owner().getName() + ": not overwritten");
        }
        Map<String, Object> unix = Files.readAttributes(absolute, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        if ((Integer) unix.get("nlink") != 1) {
            throw new UnsafePathException(absolute + " has other hard links: not overwritten");
        }
        PosixFileAttributes parent = directory.getFileAttributeView(PosixFileAttributeView.class).readAttributes();
        BasicFileAttributes byPath = Files.readAttributes(absolute.getParent(), BasicFileAttributes.class);
        Map<String, Object> parentMode = Files.readAttributes(absolute.getParent(), "unix:mode");
        if (!Objects.equals(byPath.fileKey(), parent.fileKey())) {
            throw new UnsafePathException(absolute.getParent() + " changed while " + absolute + " was being opened");
        }
        if (!(parent.owner().equals(user) || parent.owner().equals(Owners.root()))) {
            throw new UnsafePathException(absolute + " exists in a directory of user " + parent.owner().getName()
                    + ", who could swap it: not overwritten; remove it or choose a new name");
        }
        if (Owners.writableByOthers(parent) && ((Integer) parentMode.get("mode") & STICKY) == 0) {
            throw new UnsafePathException(absolute + " exists in a directory others can write, where they could swap it:"
                    + " not overwritten; remove it or choose a new name");
        }
    }
}
