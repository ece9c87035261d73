package dev.jvmticli.files;

/**
 * Whose file-system credentials create, rename and remove files in a {@link VerifiedDirectory}:
 * this process's own, or (for root only) another user's, so that what a link planted by that user
 * could reach is only what that user could reach anyway.
 */
public record FileIdentity(int uid, int gid) {
    private static final int SELF_ID = -1;
    /** This process's own credentials. */
    public static final FileIdentity SELF = new FileIdentity(SELF_ID, SELF_ID);

    public boolean isSelf() {
        return uid == SELF_ID;
    }
}
