package dev.jvmticli.attach;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A client of HotSpot's attach listener, the protocol {@code jcmd} and the JDK's Attach API speak,
 * on java.base alone so that the CLI runs on a JRE without the jdk.attach module (as jattach does).
 * The listener is a UNIX socket {@code .java_pid<pid>} in the target's own /tmp, named by the pid
 * the target knows itself by. A JVM starts it lazily: when a SIGQUIT finds a file
 * {@code .attach_pid<pid>} in its working directory or /tmp. A request is the protocol version (1),
 * a command and three arguments, each ended by a NUL byte; the answer is a status line (0: the
 * command ran), the command's output, then end of stream. The listener accepts a peer of its own
 * uid and gid or root, so root reaches any user's JVM without taking that user's credentials.
 */
final class AttachListener {
    private static final int PROTOCOL_VERSION = 1;
    private static final int ARGUMENTS = 3;
    /** The status a listener answers a request of a version it does not speak with. */
    private static final int BAD_VERSION = 101;
    private static final int ANSWER_LIMIT = 64 * 1024;
    /** SIGQUIT (3) in the signal masks of /proc/<pid>/status. */
    private static final long SIGQUIT_BIT = 1L << 2;
    private static final long FIRST_POLL_MILLIS = 2;
    private static final long LONGEST_POLL_MILLIS = 100;
    /**
     * How SIGQUIT is sent: Java has no call for it (ProcessHandle sends only SIGTERM and SIGKILL;
     * the foreign-function API is JDK 22+ and took seconds to set up here), so by kill(1), which
     * every Linux image with a shell has (procps, util-linux or busybox), else by the shell's builtin.
     */
    private static final List<List<String>> KILL_COMMANDS = List.of(
            List.of("/bin/kill", "-QUIT"), List.of("/usr/bin/kill", "-QUIT"), List.of("/bin/sh", "-c", "kill -QUIT \"$0\""));

    /** What the listener answered: its status and the command's output. */
    record Answer(int status, String output) {
        boolean badVersion() {
            return status == BAD_VERSION;
        }
    }

    private final TargetProcess target;
    private final Path tmp;
    private final Path socket;

    AttachListener(TargetProcess target) {
        this.target = target;
        this.tmp = target.root().resolve("tmp");
        this.socket = tmp.resolve(".java_pid" + target.nsPid());
    }

    /** Runs one command: connects (starting the listener first if it is not running) and reads the whole answer. */
    Answer execute(long deadlineNanos, String command, String... arguments) {
        try (SocketChannel channel = connect(deadlineNanos)) {
            channel.write(ByteBuffer.wrap(request(command, arguments)));
            return answer(channel);
        } catch (IOException e) {
            throw failure(e);
        }
    }

    static byte[] request(String command, String... arguments) {
        if (arguments.length > ARGUMENTS) {
            throw new IllegalArgumentException("the attach protocol takes " + ARGUMENTS + " arguments at most");
        }
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        List<String> parts = new ArrayList<>(List.of(Integer.toString(PROTOCOL_VERSION), command));
        parts.addAll(List.of(arguments));
        for (int i = arguments.length; i < ARGUMENTS; i++) {
            parts.add("");
        }
        for (String part : parts) {
            request.writeBytes(part.getBytes(StandardCharsets.UTF_8));
            request.write(0);
        }
        return request.toByteArray();
    }

    static Answer parse(String answer) {
        int newline = answer.indexOf('\n');
        String status = (newline < 0 ? answer : answer.substring(0, newline)).strip();
        try {
            return new Answer(Integer.parseInt(status), newline < 0 ? "" : answer.substring(newline + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an attach listener's answer: " + status, e);
        }
    }

    private SocketChannel connect(long deadlineNanos) throws IOException {
        if (isSocket(socket)) {
            SocketChannel running = connectIfOurs();
            if (running != null) {
                return running;
            }
        }
        Path trigger = createTrigger();
        try {
            boolean signalled = false;
            for (long pause = FIRST_POLL_MILLIS; !isSocket(socket); pause = Math.min(2 * pause, LONGEST_POLL_MILLIS)) {
                if (!target.isAlive()) {
                    throw exited();
                }
                // A JVM installs its SIGQUIT handler early in its start-up; before that the signal would end it.
                if (!signalled && catchesQuit()) {
                    sendQuit();
                    signalled = true;
                }
                if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) - deadlineNanos > 0) {
                    throw notAnswering();
                }
                sleep(pause);
            }
        } finally {
            Files.deleteIfExists(trigger);
        }
        SocketChannel started = connectIfOurs();
        if (started == null) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "attach to " + target.pid() + " failed: its attach socket " + socket
                    + " refuses connections");
        }
        return started;
    }

    /**
     * A connection to the socket if it is the target's listener. A socket of another user, or one
     * nothing listens on, is a leftover of an earlier JVM with the same pid: the target does not
     * replace it when it cannot (another user's file in the sticky /tmp), so it is removed here.
     */
    private SocketChannel connectIfOurs() throws IOException {
        if (!ownedByTarget(socket)) {
            removeLeftover();
            return null;
        }
        try {
            return SocketChannel.open(UnixDomainSocketAddress.of(socket));
        } catch (ConnectException e) {
            removeLeftover();
            return null;
        }
    }

    private boolean ownedByTarget(Path file) throws IOException {
        Set<PosixFilePermission> others = Set.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
        try {
            return ((Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)) == target.uid()
                    && Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS).stream().noneMatch(others::contains);
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    private void removeLeftover() throws IOException {
        if (!target.isAlive()) {
            throw exited();
        }
        Files.deleteIfExists(socket);
    }

    /**
     * Creates {@code .attach_pid<pid>} in the target's working directory, else in its /tmp. The
     * JVM trusts only a file of its own user or root, so one a file system gave another owner is
     * replaced by one in /tmp. Never through a link.
     */
    private Path createTrigger() throws IOException {
        String name = ".attach_pid" + target.nsPid();
        Path cwd = Path.of("/proc", Long.toString(target.pid()), "cwd").resolve(name);
        try {
            create(cwd);
            int owner = (Integer) Files.getAttribute(cwd, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (owner == target.uid() || owner == 0) {
                return cwd;
            }
            Files.deleteIfExists(cwd);
        } catch (IOException e) {
            // a working directory this user may not write to, or gone: /tmp then
        }
        Path inTmp = tmp.resolve(name);
        create(inTmp);
        return inTmp;
    }

    private static void create(Path file) throws IOException {
        try {
            Files.newByteChannel(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)).close();
        } catch (FileAlreadyExistsException e) {
            if (Files.isSymbolicLink(file)) {
                throw e;
            }
        }
    }

    private void sendQuit() throws IOException {
        IOException missing = null;
        for (List<String> kill : KILL_COMMANDS) {
            if (!Files.isExecutable(Path.of(kill.get(0)))) {
                continue;
            }
            List<String> command = new ArrayList<>(kill);
            command.add(Long.toString(target.pid()));
            try {
                Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (process.waitFor(5, TimeUnit.SECONDS) && process.exitValue() == 0) {
                    return;
                }
                process.destroyForcibly();
                if (!target.isAlive()) {
                    throw exited();
                }
                throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "could not send SIGQUIT to " + target.pid() + " (" + String.join(" ", command) + " failed)");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliFailure(ExitCode.TIMEOUT, "interrupted while attaching to " + target.pid());
            } catch (IOException e) {
                missing = e;
            }
        }
        throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "cannot start the attach listener of " + target.pid()
                + ": no kill command to send it SIGQUIT (looked for /bin/kill, /usr/bin/kill, /bin/sh)", missing);
    }

    private boolean catchesQuit() throws IOException {
        boolean caught = false;
        boolean ignored = false;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(target.pid()), "status"))) {
            if (line.startsWith("SigCgt:")) {
                caught = (Long.parseUnsignedLong(line.substring(7).strip(), 16) & SIGQUIT_BIT) != 0;
            } else if (line.startsWith("SigIgn:")) {
                ignored = (Long.parseUnsignedLong(line.substring(7).strip(), 16) & SIGQUIT_BIT) != 0;
            }
        }
        return caught && !ignored;
    }

    private Answer answer(SocketChannel channel) throws IOException {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        ByteBuffer buffer = ByteBuffer.allocate(8192);
        while (channel.read(buffer) >= 0 && received.size() < ANSWER_LIMIT) {
            received.write(buffer.array(), 0, buffer.position());
            buffer.clear();
        }
        if (received.size() == 0) {
            if (!target.isAlive()) {
                throw exited();
            }
            throw new CliFailure(ExitCode.PERMISSION_DENIED, "JVM " + target.pid()
                    + " closed the attach connection without an answer: it answers only its own user and group, or root");
        }
        try {
            return parse(received.toString(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "attach to " + target.pid() + " failed: " + e.getMessage(), e);
        }
    }

    private static boolean isSocket(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther();
        } catch (IOException e) {
            return false;
        }
    }

    private CliFailure failure(IOException e) {
        String message = String.valueOf(e.getMessage());
        if (e instanceof AccessDeniedException || message.contains("Permission denied") || message.contains("Operation not permitted")) {
            return new CliFailure(ExitCode.PERMISSION_DENIED, "permission denied attaching to " + target.pid() + ": run as the JVM's user or root", e);
        }
        if (!target.isAlive()) {
            return exited();
        }
        return new CliFailure(ExitCode.AGENT_LOAD_FAILED, "attach to " + target.pid() + " failed: " + message, e);
    }

    private CliFailure exited() {
        return new CliFailure(ExitCode.NO_SUCH_PROCESS, "process " + target.pid() + " exited");
    }

    private CliFailure notAnswering() {
        return new CliFailure(ExitCode.TIMEOUT, "JVM " + target.pid()
                + " did not answer the attach request (is -XX:+DisableAttachMechanism set, or is it hung?)");
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.TIMEOUT, "interrupted while attaching to " + target.pid());
        }
    }
}
