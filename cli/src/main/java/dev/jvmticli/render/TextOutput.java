package dev.jvmticli.render;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * A PrintWriter of UTF-8 text into an OutputStream through one large buffer, to which a renderer
 * of large output also hands bytes it has already encoded ({@link #writeUtf8}): a thread dump's
 * frame lines are encoded once per distinct frame, not once per line through a char pipeline.
 * Text and bytes come out in the order they were given. Not flushed per line: {@link #flush()}
 * pushes everything to the stream. As with PrintWriter, an IOException only sets {@link #checkError()}.
 */
public final class TextOutput extends PrintWriter {
    private final BufferedOutputStream buffer;
    private final OutputStreamWriter chars;

    private TextOutput(OutputStreamWriter chars, BufferedOutputStream buffer) {
        super(chars, false);
        this.chars = chars;
        this.buffer = buffer;
    }

    /** Text into stream, written to it bufferSize bytes at a time (and on flush). */
    public static TextOutput of(OutputStream stream, int bufferSize) {
        BufferedOutputStream buffer = new BufferedOutputStream(stream, bufferSize);
        // the encoder's own flush only moves its bytes into the buffer: writeUtf8 orders through it
        OutputStream encoded = new FilterOutputStream(buffer) {
            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                out.write(bytes, offset, length);
            }

            @Override
            public void flush() {
            }
        };
        return new TextOutput(new OutputStreamWriter(encoded, StandardCharsets.UTF_8), buffer);
    }

    /** UTF-8 bytes, after everything printed so far. */
    public void writeUtf8(byte[] bytes, int offset, int length) {
        synchronized (lock) {
            try {
                chars.flush();
                buffer.write(bytes, offset, length);
            } catch (IOException e) {
                setError(); // as PrintWriter has it
            }
        }
    }

    /** This output as a stream of UTF-8 bytes (see {@link #writeUtf8}); closing it only flushes. */
    public OutputStream bytes() {
        return new OutputStream() {
            @Override
            public void write(int b) {
                writeUtf8(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                writeUtf8(bytes, offset, length);
            }

            @Override
            public void flush() {
                TextOutput.this.flush();
            }

            @Override
            public void close() {
                flush();
            }
        };
    }

    @Override
    public void flush() {
        synchronized (lock) {
            super.flush();
            try {
                buffer.flush();
            } catch (IOException e) {
                setError();
            }
        }
    }

    @Override
    public void close() {
        flush();
        super.close();
    }
}
