package dev.jvmticli.attach;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.files.FileIdentity;
import dev.jvmticli.files.FileStatus;
import dev.jvmticli.files.VerifiedDirectory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    private static final int GROUP_OR_OTHERS_READ_WRITE = 0066;
    private static final int TRIGGER_MODE = 0600;
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
    private final String socketName;
    private final Path socket;

    AttachListener(TargetProcess target) {
        this.target = target;
        this.socketName = ".java_pid" + target.nsPid();
        this.socket = target.root().resolve("tmp").resolve(socketName);
    }

    /**
     * Runs one command: connects (starting the listener first if it is not running) and reads the
     * whole answer. The target's /tmp is opened once, and the socket looked at, removed and
     * connected to relative to it.
     */
    Answer execute(long deadlineNanos, String command, String... arguments) {
        try (VerifiedDirectory tmp = TargetFileSystem.tmp(target, FileIdentity.SELF); SocketChannel channel = connect(tmp, deadlineNanos)) {
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

    private SocketChannel connect(VerifiedDirectory tmp, long deadlineNanos) throws IOException {
        if (isSocket(tmp)) {
            SocketChannel running = connectIfOurs(tmp);
            if (running != null) {
                return running;
            }
        }
        try (Trigger trigger = createTrigger(tmp)) {
            boolean signalled = false;
            for (long pause = FIRST_POLL_MILLIS; !isSocket(tmp); pause = Math.min(2 * pause, LONGEST_POLL_MILLIS)) {
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
        }
        SocketChannel started = connectIfOurs(tmp);
        if (started == null) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "attach to " + target.pid() + " failed: its attach socket " + socket
                    + " refuses connections");
        }
        return started;
    }

    /**
     * A connection to the socket if it is the target's listener. A socket of another user, or one
     * nothing listens on, is a leftover of an earlier JVM with the same pid: the target does not
     * replace it when it cannot (another user's file in the sticky /tmp), so it is removed here
     * (unlinkat in the open /tmp: the entry itself, never what a link names).
     */
    private SocketChannel connectIfOurs(VerifiedDirectory tmp) throws IOException {
        FileStatus status = tmp.statusOf(socketName);
        if (status == null || !status.isSocket() || status.uid() != target.uid() || (status.permissions() & GROUP_OR_OTHERS_READ_WRITE) != 0) {
            removeLeftover(tmp);
            return null;
        }
        try {
            return SocketChannel.open(UnixDomainSocketAddress.of(tmp.throughDescriptor(socketName)));
        } catch (ConnectException e) {
            removeLeftover(tmp);
            return null;
        }
    }

    private void removeLeftover(VerifiedDirectory tmp) throws IOException {
        if (!target.isAlive()) {
            throw exited();
        }
        tmp.delete(socketName);
    }

    /** {@code .attach_pid<pid>}, to be removed when the listener has started or the attach gave up. */
    private record Trigger(VerifiedDirectory directory, String name) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try {
                directory.delete(name);
            } finally {
                directory.close();
            }
        }
    }

    /**
     * Creates {@code .attach_pid<pid>} in the target's working directory, else in its /tmp, with
     * the target user's file-system credentials when the CLI is root (a JVM in a user namespace
     * trusts only a file of its own user), relative to the opened directory, never through a
     * link, never over an existing name. The JVM trusts only a file of its own user or root, so
     * one a file system gave another owner is replaced by one in /tmp.
     */
    private Trigger createTrigger(VerifiedDirectory tmp) throws IOException {
        String name = ".attach_pid" + target.nsPid();
        try {
            VerifiedDirectory cwd = TargetFileSystem.workingDirectory(target);
            if (placeTrigger(cwd, name)) {
                return new Trigger(cwd, name);
            }
            cwd.close();
        } catch (IOException e) {
            // a working directory this user may not write to, or gone: /tmp then
        }
        VerifiedDirectory inTmp = tmp.withIdentity(target.fileIdentity());
        try {
            if (!placeTrigger(inTmp, name)) {
                throw new IOException(socket.resolveSibling(name) + " exists and is not a file of the JVM's user or root");
            }
            return new Trigger(inTmp, name);
        } catch (IOException | RuntimeException e) {
            inTmp.close();
            throw e;
        }
    }

    /** Whether the directory now holds a trigger file the JVM trusts (made now, or left by another attach). */
    private boolean placeTrigger(VerifiedDirectory directory, String name) throws IOException {
        boolean created = directory.createFile(name, new byte[0], TRIGGER_MODE);
        FileStatus status = directory.statusOf(name);
        boolean trusted = status != null && status.isRegularFile() && (status.uid() == target.uid() || status.uid() == 0);
        if (created && !trusted) {
            directory.delete(name);
        }
        return trusted;
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
            throw refusedUs();
        }
        try {
            return parse(received.toString(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "attach to " + target.pid() + " failed: " + e.getMessage(), e);
        }
    }

    private boolean isSocket(VerifiedDirectory tmp) throws IOException {
        FileStatus status = tmp.statusOf(socketName);
        return status != null && status.isSocket();
    }

    /** The listener closed the connection unanswered: it checks its peer's uid and gid. */
    private CliFailure refusedUs() {
        if (target.inAnotherUserNamespace()) {
            return new CliFailure(ExitCode.PERMISSION_DENIED, "JVM " + target.pid() + " runs in a user namespace of its own, where it sees"
                    + " this CLI's user as unmapped and answers only its own: run jvmti-cli inside its namespaces (nsenter -t "
                    + target.pid() + " -U -m jvmti-cli ...)");
        }
        return new CliFailure(ExitCode.PERMISSION_DENIED, "JVM " + target.pid()
                + " closed the attach connection without an answer: it answers only its own user and group, or root");
    }

    private CliFailure failure(IOException e) {
        String message = String.valueOf(e.getMessage());
        if ((message.contains("Connection reset") || message.contains("Broken pipe")) && target.isAlive()) {
            return refusedUs();
        }
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
