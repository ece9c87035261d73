package dev.jvmticli.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * Blocking streams over a non-blocking channel, so that every read and write gives up after a
 * timeout instead of hanging on a target that stopped answering.
 */
final class ChannelStreams implements AutoCloseable {
    private final SocketChannel channel;
    private final Selector selector;
    private long timeoutMillis;
    private volatile boolean holdInterrupts;
    private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024).flip();

    ChannelStreams(SocketChannel channel, Duration timeout) throws IOException {
        this.channel = channel;
        this.timeoutMillis = Math.max(1, timeout.toMillis());
        channel.configureBlocking(false);
        this.selector = Selector.open();
    }

    Duration timeout() {
        return Duration.ofMillis(timeoutMillis);
    }

    /** The timeout from now on; returns the one it replaces. */
    Duration timeout(Duration timeout) {
        Duration previous = Duration.ofMillis(timeoutMillis);
        timeoutMillis = Math.max(1, timeout.toMillis());
        return previous;
    }

    /**
     * Whether an interrupt leaves a wait for the other end going (held) or ends it (as a timeout
     * would: the shell's cancel interrupts a command and drops its connection). Held around an
     * exchange that must finish, as the keep-alive hello in a window Ctrl-C may end: the exchange
     * is read to its end and the interrupt kept for the caller.
     */
    void holdInterrupts(boolean hold) {
        holdInterrupts = hold;
    }

    private void await(int operation) throws IOException {
        SelectionKey key = channel.register(selector, operation);
        boolean interrupted = false;
        try {
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            for (;;) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left > 0 && selector.select(left) > 0) {
                    selector.selectedKeys().clear();
                    return;
                }
                // a select returns at once while the thread is interrupted
                if (left <= 0 || !holdInterrupts || !channel.isOpen() || !Thread.interrupted()) {
                    throw new SocketTimeoutException("no answer within " + timeoutMillis + " ms");
                }
                interrupted = true;
            }
        } finally {
            key.interestOps(0);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for millis while watching the connection: throws EOFException as soon as the other
     * end closes it (the target exited, the agent was detached). Bytes that arrive meanwhile are
     * kept for the next read. Returns early, the interrupt kept, when the thread is interrupted.
     */
    void idle(long millis) throws IOException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long left;
        while ((left = (deadline - System.nanoTime()) / 1_000_000L) > 0) {
            SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
            int ready;
            try {
                ready = selector.select(left);
                selector.selectedKeys().clear();
            } finally {
                key.interestOps(0);
            }
            if (Thread.currentThread().isInterrupted()) {
                // a read now would close the channel (an interruptible one): the caller sees the interrupt and may still use it
                return;
            }
            if (ready > 0) {
                buffer.compact();
                int n = channel.read(buffer);
                buffer.flip();
                if (n < 0) {
                    throw new EOFException("connection closed");
                }
                if (n > 0 || !buffer.hasRemaining()) {
                    sleepQuietly(deadline); // unsolicited bytes: stop watching, keep them
                    return;
                }
            }
        }
    }

    private static void sleepQuietly(long deadlineNanos) throws IOException {
        long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
        try {
            if (left > 0) {
                Thread.sleep(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
    }

    final InputStream input = new InputStream() {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            while (!buffer.hasRemaining()) {
                buffer.clear();
                int n = channel.read(buffer);
                buffer.flip();
                if (n < 0) {
                    return -1;
                }
                if (n == 0) {
                    await(SelectionKey.OP_READ);
                }
            }
            int n = Math.min(length, buffer.remaining());
            buffer.get(bytes, offset, n);
            return n;
        }
    };

    final OutputStream output = new OutputStream() {
        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            ByteBuffer data = ByteBuffer.wrap(bytes, offset, length);
            while (data.hasRemaining()) {
                if (channel.write(data) == 0) {
                    await(SelectionKey.OP_WRITE);
                }
            }
        }
    };

    @Override
    public void close() throws IOException {
        try {
            selector.close();
        } finally {
            channel.close();
        }
    }
}
