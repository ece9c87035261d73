package dev.jvmticli.shell;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/** Passes bytes on until it is shut, then drops them: what a cancelled command prints is discarded. */
final class GatedOutputStream extends FilterOutputStream {
    private volatile boolean shut;

    GatedOutputStream(OutputStream out) {
        super(out);
    }

    void shut() {
        shut = true;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        if (!shut) {
            out.write(bytes, offset, length);
        }
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void flush() throws IOException {
        if (!shut) {
            out.flush();
        }
    }
}
