import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The soak run's target: threads that start and end, allocation with a live set that turns over,
 * contention on one monitor, and a class loaded by a fresh loader (then dropped, so it can
 * unload), all at a bounded rate: the machine is shared. Prints READY and runs until killed.
 */
public final class SoakTarget {
    static final Object LOCK = new Object();
    static final Object[] LIVE = new Object[4096];
    static volatile long sink;

    /** Loaded again and again by a new class loader each time. */
    public static final class Loaded {
        @Override
        public String toString() {
            return "loaded by " + getClass().getClassLoader();
        }
    }

    public static void main(String[] args) throws Exception {
        URL classes = Path.of(SoakTarget.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toUri().toURL();
        daemon("soak-spawner", () -> {
            for (int round = 0; ; round++) {
                Thread[] workers = new Thread[4];
                for (int i = 0; i < workers.length; i++) {
                    workers[i] = new Thread(SoakTarget::work, "soak-worker-" + round + "-" + i);
                    workers[i].start();
                }
                for (Thread worker : workers) {
                    worker.join();
                }
                Thread.sleep(50);
            }
        });
        daemon("soak-allocator", () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (true) {
                for (int i = 0; i < 200; i++) {
                    LIVE[random.nextInt(LIVE.length)] = new byte[random.nextInt(64, 8192)];
                }
                Thread.sleep(1);
            }
        });
        for (int i = 0; i < 3; i++) {
            daemon("soak-contender-" + i, () -> {
                while (true) {
                    synchronized (LOCK) {
                        Thread.sleep(2);
                    }
                    Thread.sleep(1);
                }
            });
        }
        daemon("soak-loader", () -> {
            while (true) {
                try (URLClassLoader loader = new URLClassLoader(new URL[] {classes}, null)) {
                    sink += loader.loadClass(Loaded.class.getName()).getDeclaredConstructor().newInstance().toString().length();
                }
                Thread.sleep(100);
            }
        });
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    static void work() {
        long sum = 0;
        for (int i = 0; i < 20_000; i++) {
            sum += Integer.toString(i).hashCode();
        }
        synchronized (LOCK) {
            sink += sum;
        }
    }

    interface Body {
        void run() throws Exception;
    }

    static void daemon(String name, Body body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                e.printStackTrace();
                Runtime.getRuntime().halt(3);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }
}
