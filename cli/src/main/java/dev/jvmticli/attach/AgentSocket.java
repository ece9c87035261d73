package dev.jvmticli.attach;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * A connection to a target's agent socket, made only after checking, before a byte is sent, that
 * nobody else put it there: its directory ({@code /tmp/.jvmti-cli-<uid>} in the target's file
 * system) is a directory, not a link, owned by the JVM's user or root and closed to everyone else,
 * and the process listening on it is the target itself (its pid and uid, from SO_PEERCRED). Any other
 * user could otherwise make that directory first and answer in the agent's place. The directory is
 * checked through a descriptor and connected through it ({@code /proc/self/fd/<fd>/<pid>.sock}), so
 * what was checked is what is used; the native half is native/src/cli_process/agent_socket_check.c.
 */
public final class AgentSocket {
    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFLNK = 0120000;
    private static final int ENOENT = 2;
    private static final long RETRY_MILLIS = 20;
    private static boolean loaded;

    private AgentSocket() {
    }

    /**
     * Connects to target's agent within timeout. Empty when no agent listens (no directory, no
     * socket, or a stale socket of a JVM that died).
     *
     * @throws UntrustedDirectory when the directory is not the target's (nothing is connected)
     * @throws CliFailure with {@link ExitCode#UNTRUSTED_SOCKET} when the listener is not the target,
     *                    {@link ExitCode#AGENT_BUSY} when the socket's backlog stays full for the
     *                    whole timeout
     */
    public static Optional<SocketChannel> connect(TargetProcess target, Duration timeout) {
        Path socket = target.socketPath();
        Path directory = socket.getParent();
        if (Files.notExists(directory, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty(); // no agent ever started there: the native half is not needed
        }
        loadNative();
        long[] described = openDirectory(directory.getParent().toString(), directory.getFileName().toString());
        int fd = (int) described[0];
        if (fd < 0) {
            if (-fd == ENOENT) {
                return Optional.empty();
            }
            throw new UntrustedDirectory("cannot check the agent's socket directory " + directory + ": error " + -fd);
        }
        try {
            checkDirectory(target, directory, (int) described[1], (int) described[2]);
            Path checked = Path.of("/proc/self/fd", Integer.toString(fd), socket.getFileName().toString());
            if (!Files.exists(checked, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            Optional<SocketChannel> channel = connectWithin(checked, socket, timeout);
            if (channel.isPresent()) {
                checkListener(target, socket, channel.get());
            }
            return channel;
        } finally {
            closeDirectory(fd);
        }
    }

    /** Whether target's agent listens on its socket, checked as {@link #connect} checks it; nothing is sent. */
    public static boolean resident(TargetProcess target, Duration timeout) {
        try {
            Optional<SocketChannel> channel = connect(target, timeout);
            channel.ifPresent(AgentSocket::closeQuietly);
            return channel.isPresent();
        } catch (CliFailure e) {
            return false;
        }
    }

    private static void checkDirectory(TargetProcess target, Path directory, int uid, int mode) {
        String what;
        if ((mode & S_IFMT) == S_IFLNK) {
            what = "is a link";
        } else if ((mode & S_IFMT) != S_IFDIR) {
            what = "is not a directory";
        } else if (uid != target.uid() && uid != 0) {
            what = "belongs to uid " + uid + ", not to the JVM's user (uid " + target.uid() + ") or root";
        } else if ((mode & 077) != 0) {
            what = String.format("has mode %04o, open to other users", mode & 07777);
        } else {
            return;
        }
        throw new UntrustedDirectory("the agent's socket directory " + directory + " " + what
                + ": not trusted (another user may have made it to answer in the agent's place); remove it and run again");
    }

    /** The socket's directory is not the JVM's user's (or root's) private directory. */
    public static final class UntrustedDirectory extends CliFailure {
        UntrustedDirectory(String message) {
            super(ExitCode.UNTRUSTED_SOCKET, message);
        }
    }

    private static void checkListener(TargetProcess target, Path socket, SocketChannel channel) {
        long[] peer = peer(channel);
        if (peer[0] != target.pid() || peer[1] != target.uid()) {
            closeQuietly(channel);
            String listener = peer[0] <= 0 ? "a process this CLI cannot see" : "process " + peer[0] + " (uid " + peer[1] + ")";
            throw new CliFailure(ExitCode.UNTRUSTED_SOCKET, "the agent's socket " + socket + " is answered by " + listener
                    + ", not by JVM " + target.pid() + " (uid " + target.uid() + "): not trusted");
        }
    }

    /**
     * A connect that honours the timeout: a blocking one waits as long as the agent's listen backlog
     * is full (every slot taken), so the channel connects without blocking and tries again.
     */
    private static Optional<SocketChannel> connectWithin(Path checked, Path socket, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            SocketChannel channel = null;
            try {
                channel = SocketChannel.open(StandardProtocolFamily.UNIX);
                channel.configureBlocking(false);
                if (channel.connect(UnixDomainSocketAddress.of(checked)) || channel.finishConnect()) {
                    return Optional.of(channel);
                }
            } catch (ConnectException e) {
                closeQuietly(channel);
                return Optional.empty(); // refused: a stale socket of a JVM that died
            } catch (IOException e) {
                closeQuietly(channel);
                if (!"Resource temporarily unavailable".equals(e.getMessage())) {
                    return Optional.empty();
                }
            }
            closeQuietly(channel);
            if (System.nanoTime() >= deadline) {
                throw new CliFailure(ExitCode.AGENT_BUSY, "all connections to the agent in " + target(socket)
                        + " are busy (its backlog stayed full for " + timeout.toMillis() / 1000.0 + " s): try again later");
            }
            sleep();
        }
    }

    private static String target(Path socket) {
        String name = socket.getFileName().toString();
        return "JVM " + name.substring(0, name.length() - ".sock".length());
    }

    private static void sleep() {
        try {
            Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.TIMEOUT, "interrupted");
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing is all that was left to do
        }
    }

    /** The JNI half lives in the agent library, loaded into this CLI process on first use. */
    private static synchronized void loadNative() {
        if (loaded) {
            return;
        }
        try {
            System.load(new AgentLibrary().extract().toString());
            loaded = true;
        } catch (IOException | UnsatisfiedLinkError e) {
            throw new CliFailure(ExitCode.FAILURE, "cannot load the agent library to check the agent's socket: " + e.getMessage(), e);
        }
    }

    private static native long[] openDirectory(String parent, String name);

    private static native void closeDirectory(int fd);

    private static native long[] peer(SocketChannel channel);
}
