import java.util.ArrayList;
import java.util.List;

/** Holds about N MiB of live objects, in the proportions of a service's heap: mostly small objects, some arrays. */
public class LiveHeap {
    static final List<Object[]> HELD = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        long bytes = Long.parseLong(args[0]) << 20;
        long held = 0;
        while (held < bytes) {
            Object[] chunk = new Object[4096];
            for (int i = 0; i < chunk.length; i++) {
                chunk[i] = i % 16 == 0 ? new byte[512] : new long[2]; // 528 B and 32 B
            }
            HELD.add(chunk);
            held += 4096L * 4 + 16 + 256 * 528 + 3840 * 32;
        }
        System.gc();
        System.out.println("READY");
        Thread.sleep(3_600_000);
    }
}
