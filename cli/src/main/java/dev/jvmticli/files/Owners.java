package dev.jvmticli.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;

/** Who owns a file and who else may write it, as the checks of this package need them. */
public final class Owners {
    private static final Set<PosixFilePermission> WRITE_BY_OTHERS = Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    private Owners() {
    }

    /** The user this process runs as (the owner of /proc/self is the effective uid). */
    static UserPrincipal runningUser() throws IOException {
        return Files.getOwner(Path.of("/proc/self"));
    }

    static UserPrincipal root() throws IOException {
        return Path.of("/").getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("root");
    }

    /** True when dir exists and belongs to the user this process runs as. */
    public static boolean isRunningUsers(Path dir) {
        try {
            return Files.getOwner(dir).equals(runningUser());
        } catch (IOException e) {
            return false;
        }
    }

    static boolean writableByOthers(PosixFileAttributes attributes) {
        return attributes.permissions().stream().anyMatch(WRITE_BY_OTHERS::contains);
    }
}
