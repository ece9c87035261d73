package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.failure.OutputClosed;
import dev.jvmticli.payload.AgentLibrary;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * File descriptor 1, where a closed reader ends the run as it ends {@code yes | head}. The JVM
 * ignores SIGPIPE, and PrintWriter turns the EPIPE of a write into a flag nobody reads; this
 * stream throws {@link OutputClosed} instead, through every writer above it. A command that waits
 * without writing (a sampling window, an interval, watch's pause) asks {@link #checkReader()} every
 * {@value #CHECK_MILLIS} ms: on a pipe or a socket, poll(2) through a JNI function of the agent
 * library tells whether the reader went away (loaded only then; without it, the next write tells).
 */
public final class StandardOutput extends OutputStream {
    static final long CHECK_MILLIS = 200;

    private final FileOutputStream fd1 = new FileOutputStream(FileDescriptor.out);

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        try {
            fd1.write(bytes, offset, length);
        } catch (IOException e) {
            throw failed(e);
        }
    }

    @Override
    public void flush() {
        try {
            fd1.flush();
        } catch (IOException e) {
            throw failed(e);
        }
    }

    private static OutputClosed failed(IOException e) {
        boolean gone = "Broken pipe".equals(e.getMessage()) || Probe.readerGone();
        return new OutputClosed(gone, "cannot write standard output: " + e.getMessage(), e);
    }

    /** Throws {@link OutputClosed} when the reader of standard output is known to have gone away. */
    public static void checkReader() {
        if (Probe.readerGone()) {
            throw new OutputClosed(true, "the reader of standard output went away", null);
        }
    }

    /** Sleeps for at least millis, checking the reader meanwhile. */
    public static void sleep(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            Thread.sleep(Math.min(ceilMillis(left), CHECK_MILLIS));
            checkReader();
        }
    }

    /** {@link AgentClient#pause} (which watches the connection) that also checks the reader. */
    public static void pause(AgentClient client, Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            client.pause(Duration.ofMillis(Math.min(ceilMillis(left), CHECK_MILLIS)));
            checkReader();
        }
    }

    /** Whole milliseconds, rounded up: an interval waited for never ends short of what was asked. */
    private static long ceilMillis(long nanos) {
        return (nanos + 999_999L) / 1_000_000L;
    }

    /** The poll(2) of fd 1, where fd 1 is a pipe or a socket and the library loads. */
    private static final class Probe {
        private static final boolean LOADED = load();

        private static boolean load() {
            try {
                String fd1 = Files.readSymbolicLink(Path.of("/proc/self/fd/1")).toString();
                if (!fd1.startsWith("pipe:") && !fd1.startsWith("socket:")) {
                    return false;
                }
                System.load(new AgentLibrary().extract().toString());
                return true;
            } catch (IOException | UnsupportedOperationException | SecurityException | UnsatisfiedLinkError e) {
                return false;
            }
        }

        static boolean readerGone() {
            return LOADED && StandardOutput.readerGone();
        }
    }

    private static native boolean readerGone();
}
