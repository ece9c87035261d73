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
        int end = offset + length;
        int start = offset;
        for (int i = offset; i < end; i++) {
            if (chars[i] == '\n') {
                emit(chars, start, i);
                start = i + 1;
            }
        }
        line.append(chars, start, end - start);
    }

    @Override
    public synchronized void write(String text, int offset, int length) {
        int end = offset + length;
        int start = offset;
        for (int newline; (newline = text.indexOf('\n', start)) >= 0 && newline < end; start = newline + 1) {
            if (line.length() == 0) {
                sink.accept(text.substring(start, newline));
            } else {
                sink.accept(line.append(text, start, newline).toString());
                line.setLength(0);
            }
        }
        line.append(text, start, end);
    }

    /** Hands over what is buffered of the line and chars[start, newline). */
    private void emit(char[] chars, int start, int newline) {
        if (line.length() == 0) {
            sink.accept(new String(chars, start, newline - start));
        } else {
            sink.accept(line.append(chars, start, newline - start).toString());
            line.setLength(0);
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
