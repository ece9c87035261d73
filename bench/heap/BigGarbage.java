/** Garbage in large arrays: a 1 MiB byte[] dropped about every millisecond (10 every 10 ms), forever. */
public final class BigGarbage {
    static volatile byte[] sink;

    public static void main(String[] args) throws InterruptedException {
        while (true) {
            for (int i = 0; i < 10; i++) {
                sink = new byte[1 << 20];
            }
            Thread.sleep(10);
        }
    }
}
