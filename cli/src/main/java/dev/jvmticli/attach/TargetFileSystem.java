package dev.jvmticli.attach;

import dev.jvmticli.files.FileIdentity;
import dev.jvmticli.files.FileStatus;
import dev.jvmticli.files.VerifiedDirectory;
import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The directories of a target's file system the CLI writes in (its /tmp and working directory,
 * reached through {@code /proc/<pid>/root} and {@code /proc/<pid>/cwd}), opened without following
 * a link below those and checked after opening, and the library placed in its /tmp. Every file is
 * made with the target user's file-system credentials when the CLI is root and the target is not
 * ({@link TargetProcess#fileIdentity()}); a target of root's gets files only root can write.
 */
public final class TargetFileSystem {
    private static final int DIRECTORY_MODE = 0755;
    private static final int LIBRARY_MODE = 0444;
    private static final int LIBRARY_LIMIT = 256 << 20;
    private static final int FRESH_DIRECTORY_TRIES = 8;

    private TargetFileSystem() {
    }

    /**
     * The target's /tmp: a directory (not a link, a FIFO or anything else) of root or the
     * target's user, sticky if others may write to it (else another user could swap what the CLI
     * makes there).
     */
    public static VerifiedDirectory tmp(TargetProcess target, FileIdentity identity) throws IOException {
        try (VerifiedDirectory root = VerifiedDirectory.openTrusted(target.root(), identity)) {
            VerifiedDirectory tmp = root.subdirectory("tmp");
            FileStatus status = tmp.status();
            if ((status.uid() != 0 && status.uid() != target.uid()) || (status.writableByOthers() && !status.sticky())) {
                tmp.close();
                throw new IOException(tmp.path() + " is owned by uid " + status.uid() + " with mode "
                        + Integer.toOctalString(status.permissions()) + ": not root's or the JVM's user's, or writable by others and not sticky");
            }
            return tmp;
        }
    }

    /** The target's working directory, as it is now. */
    static VerifiedDirectory workingDirectory(TargetProcess target) throws IOException {
        return VerifiedDirectory.openTrusted(Path.of("/proc", Long.toString(target.pid()), "cwd"), target.fileIdentity());
    }

    /**
     * A copy of the library where the target finds it: this CLI's own copy when the target sees it
     * at the same path, else one in the target's /tmp. Returns the path the target opens it by.
     */
    public static Path placeLibrary(TargetProcess target, AgentLibrary library) throws IOException {
        Path own = library.extract();
        if (target.seesSameFile(own)) {
            return own;
        }
        byte[] content = library.content();
        String fileName = library.fileName(content);
        try (VerifiedDirectory tmp = tmp(target, target.fileIdentity()); VerifiedDirectory directory = libraryDirectory(tmp)) {
            if (!holds(directory, fileName, content)) {
                String temporary = "." + fileName + "." + randomHex() + ".tmp";
                if (!directory.createFile(temporary, content, LIBRARY_MODE)) {
                    throw new IOException(directory.path().resolve(temporary) + " exists in a directory only this user writes");
                }
                directory.rename(temporary, fileName);
                if (!holds(directory, fileName, content)) {
                    throw new IOException("the library placed at " + directory.path().resolve(fileName) + " does not match the bundled one");
                }
            }
            return Path.of("/tmp", directory.path().getFileName().toString(), fileName);
        }
    }

    /**
     * The library's directory in tmp: {@code .jvmti-cli-lib-<uid>}, or a fresh one when another
     * user holds that name (a squatter is left alone, and locks nobody out).
     */
    private static VerifiedDirectory libraryDirectory(VerifiedDirectory tmp) throws IOException {
        int uid = tmp.creatorUid();
        String usual = AgentLibrary.directoryName(uid);
        VerifiedDirectory directory = privateDirectory(tmp, usual);
        for (int tries = 0; directory == null && tries < FRESH_DIRECTORY_TRIES; tries++) {
            String fresh = AgentLibrary.freshDirectoryName(uid);
            if (tmp.makeDirectory(fresh, DIRECTORY_MODE)) {
                directory = privateDirectory(tmp, fresh);
            }
        }
        if (directory == null) {
            throw new IOException("cannot make a directory of uid " + uid + " in " + tmp.path() + ": " + usual
                    + " is another user's, and so was every fresh one made there");
        }
        return directory;
    }

    /** The directory of that name, made if missing, if it is the creator's and nobody else may write to it; else null. */
    private static VerifiedDirectory privateDirectory(VerifiedDirectory tmp, String name) throws IOException {
        tmp.makeDirectory(name, DIRECTORY_MODE);
        VerifiedDirectory directory;
        try {
            directory = tmp.subdirectory(name);
        } catch (IOException notADirectory) {
            return null; // a link, a FIFO, a file: someone else's
        }
        FileStatus status = directory.status();
        if (status.uid() != tmp.creatorUid() || status.writableByOthers()) {
            directory.close();
            return null;
        }
        try {
            directory.changeMode(DIRECTORY_MODE);
            return directory;
        } catch (IOException | RuntimeException e) {
            directory.close();
            throw e;
        }
    }

    /** Whether the directory holds the library as a regular file of the creator's that nobody else may write. */
    private static boolean holds(VerifiedDirectory directory, String fileName, byte[] content) throws IOException {
        FileStatus status = directory.statusOf(fileName);
        if (status == null || !status.isRegularFile() || status.writableByOthers() || status.uid() != directory.creatorUid()) {
            return false;
        }
        byte[] held = directory.readRegularFile(fileName, LIBRARY_LIMIT);
        return held != null && AgentLibrary.sameContent(held, content);
    }

    private static String randomHex() {
        byte[] bytes = new byte[8];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
