/**
 * Allocates about 20 MiB/s of 64-byte objects, each kept for about 3 s in a ring of 1M slots: under
 * `alloc --live --interval 1k` the agent's table fills with survivors (64k) within seconds, and
 * young collections keep running, for their JNI Weak phase to be measured.
 */
public class LiveSamples {
    static final class Item {
        long a, b, c, d, e, f;
    }

    public static void main(String[] args) throws Exception {
        Item[] ring = new Item[1 << 20];
        System.out.println("READY");
        System.out.flush();
        for (long i = 0; ; i++) {
            ring[(int) (i & (ring.length - 1))] = new Item();
            if ((i & 4095) == 0) {
                Thread.sleep(12); // 4096 * 64 B per 12 ms: about 20 MiB/s
            }
        }
    }
}
