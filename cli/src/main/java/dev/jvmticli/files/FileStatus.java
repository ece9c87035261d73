package dev.jvmticli.files;

/** What {@code fstat} or {@code fstatat} (not following a link) says of a file. */
public record FileStatus(long device, long inode, int mode, int uid, int gid) {
    private static final int TYPE_MASK = 0170000;
    private static final int DIRECTORY = 0040000;
    private static final int REGULAR = 0100000;
    private static final int LINK = 0120000;
    private static final int SOCKET = 0140000;
    private static final int STICKY = 01000;
    private static final int GROUP_OR_OTHERS_WRITE = 0022;

    static FileStatus of(long[] fields) {
        return fields == null ? null : new FileStatus(fields[0], fields[1], (int) fields[2], (int) fields[3], (int) fields[4]);
    }

    public boolean isDirectory() {
        return (mode & TYPE_MASK) == DIRECTORY;
    }

    public boolean isRegularFile() {
        return (mode & TYPE_MASK) == REGULAR;
    }

    public boolean isSymbolicLink() {
        return (mode & TYPE_MASK) == LINK;
    }

    public boolean isSocket() {
        return (mode & TYPE_MASK) == SOCKET;
    }

    /** Whether users other than the owner may create, rename or remove entries (if a directory) or write it. */
    public boolean writableByOthers() {
        return (mode & GROUP_OR_OTHERS_WRITE) != 0;
    }

    public boolean sticky() {
        return (mode & STICKY) != 0;
    }

    /** The permission bits, as {@code ls -l} would show them in octal. */
    public int permissions() {
        return mode & 07777;
    }
}
