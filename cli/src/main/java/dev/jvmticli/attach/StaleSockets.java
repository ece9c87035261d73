package dev.jvmticli.attach;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Removes the sockets of agents whose JVM is gone (killed with SIGKILL, it never removed its own),
 * by the rule the agent applies when it starts (native/src/agent/stale_sockets.c): a {@code <pid>.sock}
 * nobody listens on any more, which a connect is refused for, whether its pid is dead or reused.
 * The directories are opened without following links and entries removed relative to them; only
 * sockets owned by the directory's user, in a directory that user owns and nobody else may enter,
 * are removed: this user's directory, and as root every user's.
 */
public final class StaleSockets {
    private static final Path TMP = Path.of("/tmp");
    private static final Pattern DIRECTORY = Pattern.compile("\\.jvmti-cli-(\\d+)");
    private static final Pattern SOCKET = Pattern.compile("\\d+\\.sock");
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final int S_IFDIR = 0040000;

    private StaleSockets() {
    }

    /** Sweeps the directories this user may sweep. */
    public static void removeGone() {
        long euid = effectiveUid();
        try (DirectoryStream<Path> tmp = Files.newDirectoryStream(TMP)) {
            if (!(tmp instanceof SecureDirectoryStream<Path> secureTmp)) {
                return;
            }
            List<Path> names = new ArrayList<>();
            if (euid == 0) {
                secureTmp.forEach(names::add);
            } else {
                names.add(Path.of(".jvmti-cli-" + euid));
            }
            for (Path name : names) {
                var m = DIRECTORY.matcher(name.getFileName().toString());
                if (m.matches()) {
                    sweep(secureTmp, name.getFileName(), Long.parseLong(m.group(1)));
                }
            }
        } catch (IOException e) {
            // no /tmp to look at: nothing to remove
        }
    }

    private static void sweep(SecureDirectoryStream<Path> tmp, Path name, long uid) {
        Path path = TMP.resolve(name);
        try {
            Map<String, Object> dirAttributes = Files.readAttributes(path, "unix:uid,mode,fileKey", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) dirAttributes.get("mode");
            if ((mode & S_IFMT) != S_IFDIR || (mode & 077) != 0 || ((Integer) dirAttributes.get("uid")).longValue() != uid) {
                return;
            }
            try (SecureDirectoryStream<Path> dir = tmp.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                // the directory opened is the one whose owner and mode were checked
                if (!Objects.equals(dir.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey(), dirAttributes.get("fileKey"))) {
                    return;
                }
                for (Path entry : dir) {
                    Path file = entry.getFileName();
                    if (SOCKET.matcher(file.toString()).matches()) {
                        removeIfStale(dir, path.resolve(file), file, uid);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone meanwhile, or not ours to read
        }
    }

    /** Removes the socket when it is this uid's and nobody listens on it. */
    private static void removeIfStale(SecureDirectoryStream<Path> dir, Path path, Path file, long uid) {
        try {
            Object key = ownSocketKey(path, uid);
            if (key == null || !nobodyListens(path)) {
                return;
            }
            BasicFileAttributes inDirectory = dir.getFileAttributeView(file, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
            // the same file still: not a new JVM's socket under a reused pid's name
            if (key.equals(inDirectory.fileKey()) && key.equals(ownSocketKey(path, uid))) {
                dir.deleteFile(file);
            }
        } catch (IOException e) {
            // removed meanwhile, by its agent or another sweep
        }
    }

    /** The file's key if it is a socket (not a link to one) owned by uid, else null. */
    private static Object ownSocketKey(Path path, long uid) throws IOException {
        Map<String, Object> attributes = Files.readAttributes(path, "unix:uid,mode,fileKey", LinkOption.NOFOLLOW_LINKS);
        boolean socket = ((Integer) attributes.get("mode") & S_IFMT) == S_IFSOCK;
        return socket && ((Integer) attributes.get("uid")).longValue() == uid ? attributes.get("fileKey") : null;
    }

    private static boolean nobodyListens(Path socket) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.configureBlocking(false);
            channel.connect(UnixDomainSocketAddress.of(socket));
            return false;
        } catch (ConnectException e) {
            return true; // ECONNREFUSED: no listening end
        } catch (IOException e) {
            return false; // a full backlog, or not there any more
        }
    }

    private static long effectiveUid() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
                    .map(l -> Long.parseLong(l.substring(4).trim().split("\\s+")[1])).findFirst().orElse(-1L);
        } catch (IOException e) {
            return -1;
        }
    }
}
