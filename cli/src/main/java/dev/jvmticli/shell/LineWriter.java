package dev.jvmticli.shell;

import java.io.Writer;
import java.util.function.Consumer;

/** A writer that hands each complete line (without its newline) to a consumer; see {@link #finish()}. */
final class LineWriter extends Writer {
    private final StringBuilder line = new StringBuilder();
    private final Consumer<String> sink;
    private final Runnable flush;
    private final Runnable end;

    LineWriter(Consumer<String> sink, Runnable flush) {
        this(sink, flush, () -> { });
    }

    /** end runs once the last line is handed over, before the last flush. */
    LineWriter(Consumer<String> sink, Runnable flush, Runnable end) {
        this.sink = sink;
        this.flush = flush;
        this.end = end;
    }

    @Override
    public synchronized void write(char[] chars, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (chars[i] == '\n') {
                sink.accept(line.toString());
                line.setLength(0);
            } else {
                line.append(chars[i]);
            }
        }
    }

    @Override
    public void flush() {
        flush.run();
    }

    /** Hands over a last line that had no newline, then ends. */
    synchronized void finish() {
        if (line.length() > 0) {
            sink.accept(line.toString());
            line.setLength(0);
        }
        end.run();
        flush.run();
    }

    @Override
    public void close() {
        finish();
    }
}
