package dev.jvmticli.payload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
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
 * another user can still read the library). The base directory must be one nobody else can
 * rename entries in (this user's or root's, and sticky if others may write to it), so a directory
 * made there stays this user's. When another user holds that name (made it first, or planted a
 * link), a fresh directory {@code .jvmti-cli-lib-<uid>-<random>} is made instead, and the squatted
 * one is left alone. The directory is then opened once and worked in relative to its descriptor
 * ({@link SecureDirectoryStream}: {@code openat}, {@code fchmod}, {@code renameat}), after checking
 * that the open directory is the one checked: the file is written under a temporary name with
 * {@code CREATE_NEW} and {@code NOFOLLOW_LINKS}, made read-only on its descriptor, then renamed
 * into place; an existing file is used only after its content hash is checked again. It is never
 * deleted on exit: a target JVM keeps it mapped after this process is gone.
 */
public final class AgentLibrary {
    private static final String AGENT = "libjvmticli";
    private static final String PROFILER = "libasyncProfiler";
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("r--r--r--");
    private static final Set<PosixFilePermission> WRITE_BY_OTHERS = Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    private final Path base;
    private final int uid;
    private final String name;
    private final String platform;

    private AgentLibrary(Path baseDirectory, String name, String platform) {
        this.uid = currentUid();
        this.base = baseDirectory;
        this.name = name;
        this.platform = platform;
    }

    /** The agent library for this JVM's platform, handed out under the given base directory (normally {@code java.io.tmpdir}). */
    public AgentLibrary(Path baseDirectory) {
        this(baseDirectory, AGENT, platform());
    }

    public AgentLibrary() {
        this(defaultBase());
    }

    /** The agent library for another JVM on the given platform ({@link #platform()}'s form, such as {@code linux-aarch64}). */
    public static AgentLibrary agentFor(String platform) {
        return new AgentLibrary(defaultBase(), AGENT, platform);
    }

    /** The profiling engine's library for this JVM's platform, handed out under the given base directory. */
    public static AgentLibrary profiler(Path baseDirectory) {
        return new AgentLibrary(baseDirectory, PROFILER, platform());
    }

    public static AgentLibrary profiler() {
        return profiler(defaultBase());
    }

    /** The profiling engine's library for another JVM on the given platform. */
    public static AgentLibrary profilerFor(String platform) {
        return new AgentLibrary(defaultBase(), PROFILER, platform);
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

    /** The name of the directory this library is handed out in for a user, when nobody squats it. */
    public static String directoryName(int uid) {
        return ".jvmti-cli-lib-" + uid;
    }

    /** A fresh name for the directory, for when another user holds {@link #directoryName}. */
    public static String freshDirectoryName(int uid) {
        return directoryName(uid) + "-" + HexFormat.of().formatHex(randomBytes(8));
    }

    /** The library's bytes, as this jar carries them. */
    public byte[] content() throws IOException {
        return bundledLibrary();
    }

    /** The file name a copy of these bytes gets: the library's name and the start of their SHA-256. */
    public String fileName(byte[] content) {
        return name + "-" + sha256(content).substring(0, 32) + ".so";
    }

    /** Whether content is these bytes. */
    public static boolean sameContent(byte[] content, byte[] other) {
        return MessageDigest.isEqual(content, other);
    }

    /** Returns the path of a verified copy of the library, extracting it if needed. */
    public Path extract() throws IOException {
        byte[] content = bundledLibrary();
        String fileName = fileName(content);
        requireTrustedBase();
        Path directory = base.resolve(directoryName(uid));
        if (!isOwnPrivateDirectory(directory)) {
            directory = ownFreshDirectory();
        }
        try (SecureDirectoryStream<Path> dir = openChecked(directory)) {
            Path target = Path.of(fileName);
            if (matches(dir, target, content)) {
                return directory.resolve(target);
            }
            Path temporary = Path.of(fileName.substring(0, fileName.length() - 3) + "." + ProcessHandle.current().pid() + ".tmp");
            deleteIfExists(dir, temporary);
            try (SeekableByteChannel out = dir.newByteChannel(temporary, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
                ((FileChannel) out).force(true);
            }
            dir.getFileAttributeView(temporary, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setPermissions(FILE_MODE);
            dir.move(temporary, dir, target);
            if (!matches(dir, target, content)) {
                throw new IOException("library at " + directory.resolve(target) + " does not match the bundled one");
            }
            return directory.resolve(target);
        }
    }

    /** The base must be a directory where nobody else can rename or remove what this user makes. */
    private void requireTrustedBase() throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(base, PosixFileAttributes.class);
        int owner = (int) Files.getAttribute(base, "unix:uid");
        boolean sticky = ((int) Files.getAttribute(base, "unix:mode") & 01000) != 0;
        if (!attributes.isDirectory() || (owner != 0 && owner != uid)
                || (attributes.permissions().stream().anyMatch(WRITE_BY_OTHERS::contains) && !sticky)) {
            throw new IOException("refusing to use " + base + " for the agent library: it must be a directory of root or uid " + uid
                    + " that others cannot write to, or sticky");
        }
    }

    /** Makes the directory if it is not there; whether it is then this user's, not a link, and written by nobody else. */
    private boolean isOwnPrivateDirectory(Path directory) throws IOException {
        try {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
        } catch (FileAlreadyExistsException exists) {
            // checked below, whoever made it
        }
        return isPrivate(Files.readAttributes(directory, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
    }

    private boolean isPrivate(PosixFileAttributes attributes) throws IOException {
        return attributes.isDirectory() && attributes.owner().equals(ownPrincipal())
                && attributes.permissions().stream().noneMatch(WRITE_BY_OTHERS::contains);
    }

    /**
     * Another user squats the usual name: a fresh directory of this user's made by an earlier run
     * (in the trusted base nobody else can replace it), else one made now under a name nobody had.
     */
    private Path ownFreshDirectory() throws IOException {
        try (DirectoryStream<Path> earlier = Files.newDirectoryStream(base, directoryName(uid) + "-*")) {
            for (Path candidate : earlier) {
                if (candidate.getFileName().toString().matches(".*-[0-9a-f]{16}")
                        && isPrivate(Files.readAttributes(candidate, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS))) {
                    return candidate;
                }
            }
        }
        while (true) {
            Path fresh = base.resolve(freshDirectoryName(uid));
            try {
                return Files.createDirectory(fresh, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
            } catch (FileAlreadyExistsException taken) {
                // a name drawn twice, or guessed by someone: draw again
            }
        }
    }

    /**
     * Opens the directory checked by path and checks that the open one is it (same device and
     * inode, still this user's and private); sets its mode on the descriptor.
     */
    private SecureDirectoryStream<Path> openChecked(Path directory) throws IOException {
        PosixFileAttributes checked = Files.readAttributes(directory, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        DirectoryStream<Path> stream = Files.newDirectoryStream(directory);
        if (!(stream instanceof SecureDirectoryStream<Path> dir)) {
            stream.close();
            throw new IOException("this platform cannot work in " + directory + " relative to a descriptor");
        }
        try {
            PosixFileAttributeView view = dir.getFileAttributeView(PosixFileAttributeView.class);
            PosixFileAttributes opened = view.readAttributes();
            if (!opened.fileKey().equals(checked.fileKey()) || !isPrivate(opened)) {
                throw new IOException("refusing to use " + directory + ": it must be a directory of uid " + uid
                        + " that nobody else can write to");
            }
            view.setPermissions(DIRECTORY_MODE);
            return dir;
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /** Whether the entry is a regular file nobody else may write, holding exactly content. */
    private static boolean matches(SecureDirectoryStream<Path> dir, Path file, byte[] content) throws IOException {
        PosixFileAttributes attributes;
        try {
            attributes = dir.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
        } catch (NoSuchFileException e) {
            return false;
        }
        if (!attributes.isRegularFile() || attributes.size() != content.length
                || attributes.permissions().stream().anyMatch(WRITE_BY_OTHERS::contains)) {
            return false;
        }
        try (SeekableByteChannel in = dir.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer buffer = ByteBuffer.allocate(content.length);
            while (buffer.hasRemaining()) {
                if (in.read(buffer) < 0) {
                    return false;
                }
            }
            return sameContent(buffer.array(), content);
        }
    }

    private static void deleteIfExists(SecureDirectoryStream<Path> dir, Path file) throws IOException {
        try {
            dir.deleteFile(file);
        } catch (NoSuchFileException e) {
            // nothing left by an earlier run of this pid
        }
    }

    private static UserPrincipal ownPrincipal() throws IOException {
        return Files.getOwner(Path.of("/proc/self"));
    }

    private static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }

    private byte[] bundledLibrary() throws IOException {
        String resource = "/dev/jvmticli/native/" + platform + "/" + name + ".so";
        try (InputStream in = AgentLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("this build carries no " + name + ".so for " + platform);
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
