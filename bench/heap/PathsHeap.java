import java.util.HashMap;
import java.util.Map;

/** A heap of known shape for `heap --paths`: N entries of a static HashMap, each an Integer key and an Entry holding a byte[64]. */
public final class PathsHeap {
    static final Map<Integer, Entry> MAP = new HashMap<>();

    static final class Entry {
        final byte[] payload = new byte[64];
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            MAP.put(i, new Entry());
        }
        System.out.println("READY");
        Thread.sleep(Long.MAX_VALUE);
    }
}
