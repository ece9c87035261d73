package dev.jvmticli.shell;

import java.io.IOException;
import java.io.Writer;

/** Passes writes on until it is shut, then drops them: what a cancelled command prints is discarded. */
final class GatedWriter extends Writer {
    private final Writer out;
    private volatile boolean shut;

    GatedWriter(Writer out) {
        this.out = out;
    }

    void shut() {
        shut = true;
    }

    @Override
    public void write(char[] chars, int offset, int length) throws IOException {
        if (!shut) {
            out.write(chars, offset, length);
        }
    }

    @Override
    public void flush() throws IOException {
        if (!shut) {
            out.flush();
        }
    }

    @Override
    public void close() throws IOException {
        flush();
    }
}
