package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * THREADS threads looping on one shared {@code synchronized} ({@link Lock}), each holding it
 * HOLD_MILLIS (a sleep inside the block: a virtual thread keeps the monitor while it sleeps), then
 * pausing 1 ms outside it. The first argument says which threads: {@code platform}, or
 * {@code virtual} (JDK 21+, built through reflection: targets compile for Java 11), half of them
 * named {@code vc-N}, half unnamed, as an executor's are. Each thread records its own wait for
 * every enter, System.nanoTime around the {@code synchronized}: the truth {@code contention} is
 * held to. Answers {@code clear} (forget the waits recorded so far), {@code write PATH} (the waits
 * recorded since, a line each: thread id, virtual or platform, nanoseconds waited, whether another
 * thread was seen inside the block when it set out (held: it contended) or not (free), name) and
 * {@code carriers} (how many carrier threads the virtual-thread scheduler has).
 */
public final class VirtualContentionTarget {
    /** The shared monitor's class. */
    public static final class Lock {
    }

    public static final int THREADS = 12;
    public static final int HOLD_MILLIS = 5;

    static final Lock LOCK = new Lock();
    static final Queue<long[]> WAITS = new ConcurrentLinkedQueue<>();
    static volatile long sink;
    /** The thread inside the block: an enter that finds one there contends. */
    static volatile Thread holder;

    private VirtualContentionTarget() {
    }

    static void loop() {
        Thread self = Thread.currentThread();
        while (true) {
            long before = System.nanoTime();
            boolean held = holder != null;
            synchronized (LOCK) {
                long waited = System.nanoTime() - before;
                holder = self;
                WAITS.add(new long[] {self.getId(), waited, held ? 1 : 0});
                pause(HOLD_MILLIS);
                sink++;
                holder = null;
            }
            pause(1);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Thread.ofVirtual().name(name).unstarted(body), or Thread.ofVirtual().unstarted(body) when name is null. */
    private static Thread virtualThread(String name, Runnable body) throws Exception {
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Object virtual = Thread.class.getMethod("ofVirtual").invoke(null);
        if (name != null) {
            virtual = builder.getMethod("name", String.class).invoke(virtual, name);
        }
        return (Thread) builder.getMethod("unstarted", Runnable.class).invoke(virtual, body);
    }

    private static String write(List<Thread> threads, Path file) {
        List<String> lines = new ArrayList<>();
        for (long[] wait; (wait = WAITS.poll()) != null; ) {
            for (Thread t : threads) {
                if (t.getId() == wait[0]) {
                    lines.add(wait[0] + "\t" + (isVirtual(t) ? "virtual" : "platform") + "\t" + wait[1] + "\t" + (wait[2] == 1 ? "held" : "free")
                            + "\t" + t.getName());
                }
            }
        }
        try {
            Files.write(file, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "wrote " + lines.size();
    }

    private static boolean isVirtual(Thread t) {
        return t.getClass().getName().equals("java.lang.VirtualThread");
    }

    private static long carriers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getClass().getName().equals("jdk.internal.misc.CarrierThread")).count();
    }

    public static void main(String[] args) throws Exception {
        boolean virtual = args.length > 0 && args[0].equals("virtual");
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Thread t = virtual ? virtualThread(i % 2 == 0 ? "vc-" + i : null, VirtualContentionTarget::loop)
                    : new Thread(VirtualContentionTarget::loop, "pc-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        TargetMain.serve(line -> {
            if (line.equals("clear")) {
                WAITS.clear();
                return "cleared";
            }
            if (line.startsWith("write ")) {
                return write(threads, Path.of(line.substring("write ".length())));
            }
            return line.equals("carriers") ? Long.toString(carriers()) : "unknown " + line;
        });
    }
}
