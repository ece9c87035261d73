package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.ArrayList;
import java.util.List;

/**
 * A heap whose size is known and then still: KEPT_BYTES of byte arrays held from a static list, and
 * as many bytes of arrays made and dropped at start (garbage until the next collection; with a young
 * generation larger than both, as the test sizes it, none runs on its own). After READY it allocates
 * nothing, so a heap dump of every object holds both and one of the live objects only the kept half.
 * Command: {@code kept} prints KEPT_BYTES.
 */
public final class HeapDumpTarget {
    public static final int KEPT_BYTES = 32 << 20;
    private static final int ARRAY_BYTES = 64 << 10;
    static final List<byte[]> KEPT = new ArrayList<>();
    static volatile Object sink;

    private HeapDumpTarget() {
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < KEPT_BYTES / ARRAY_BYTES; i++) {
            KEPT.add(new byte[ARRAY_BYTES]);
            sink = new byte[ARRAY_BYTES];
        }
        sink = null;
        TargetMain.serve(line -> line.equals("kept") ? Integer.toString(KEPT_BYTES) : "unknown command " + line);
    }
}
