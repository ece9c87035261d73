package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A target that knows which exceptions it made: {@code run N} runs N ticks of about a millisecond
 * each on the thread {@code orders}; a tick creates and catches 4 IllegalStateExceptions in
 * {@link Stock#reserve} ("stock I"), one {@link PaymentDeclined} (the target's own class, a
 * constructor chain of its own) in {@link Payments#charge} ("declined card I"), and every 5th tick
 * one NumberFormatException that Integer.parseInt makes for {@link Orders#quantity}. It answers how
 * many of each it made: {@code ran ise=.. declined=.. nfe=..}. Each is caught where it is counted:
 * the IllegalStateExceptions and NumberFormatExceptions in {@code run}, PaymentDeclined in
 * {@link Payments#declined}. {@code vrun N T} runs the same N ticks on T virtual threads at once
 * (JDK 21+), each its share in turn, from {@link #runVirtually}, and answers the same way.
 * {@code escape N} starts N threads {@code escaper-I}, each ended by an {@link Escaped} thrown in
 * {@link Escapes#leave} that nothing catches, and answers how many its threads' uncaught exception
 * handler saw: {@code escaped N}; {@code escape-virtual N} the same with virtual threads (JDK 21+,
 * through reflection). Written in Java 11, the oldest JDK targets run on.
 */
public final class ExceptionsTarget {
    private ExceptionsTarget() {
    }

    /** The target's own exception: a chain of its own constructors above Exception's. */
    public static final class PaymentDeclined extends Exception {
        private static final long serialVersionUID = 1L;

        PaymentDeclined(int card) {
            this("declined card " + card);
        }

        private PaymentDeclined(String message) {
            super(message);
        }
    }

    /** The target's exception that no frame catches: it ends its thread. */
    public static final class Escaped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Escaped(int thread) {
            super("escaper " + thread);
        }
    }

    static final class Escapes {
        private Escapes() {
        }

        static void leave(int thread) {
            throw new Escaped(thread);
        }
    }

    static final class Stock {
        private Stock() {
        }

        static void reserve(int item) {
            throw new IllegalStateException("stock " + item);
        }
    }

    static final class Payments {
        private Payments() {
        }

        static void charge(int card) throws PaymentDeclined {
            throw new PaymentDeclined(card);
        }

        static boolean declined(int card) {
            try {
                charge(card);
                return false;
            } catch (PaymentDeclined e) {
                return true;
            }
        }
    }

    static final class Orders {
        private Orders() {
        }

        static int quantity(int tick) {
            return Integer.parseInt("qty" + tick);
        }
    }

    public static void main(String[] args) throws Exception {
        TargetMain.serve(line -> {
            if (line.startsWith("escape ")) {
                return "escaped " + escape(Integer.parseInt(line.substring(7)), false);
            }
            if (line.startsWith("escape-virtual ")) {
                return "escaped " + escape(Integer.parseInt(line.substring(15)), true);
            }
            long[] made = new long[3];
            if (line.startsWith("run ")) {
                int ticks = Integer.parseInt(line.substring(4));
                Thread orders = new Thread(() -> run(0, ticks, 1, made), "orders");
                orders.start();
                try {
                    orders.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else if (line.startsWith("vrun ")) {
                String[] ticksAndThreads = line.substring(5).split(" ");
                runVirtually(Integer.parseInt(ticksAndThreads[0]), Integer.parseInt(ticksAndThreads[1]), made);
            } else {
                return "unknown command " + line;
            }
            return "ran ise=" + made[0] + " declined=" + made[1] + " nfe=" + made[2];
        });
    }

    private static long escape(int threads, boolean virtual) {
        return Escapers.count(threads, thread -> {
            Runnable leave = () -> Escapes.leave(thread);
            return virtual ? virtual("escaper-" + thread, leave) : new Thread(leave, "escaper-" + thread);
        }, Escaped.class);
    }

    /** Thread.ofVirtual().name(name).unstarted(body), through reflection. */
    private static Thread virtual(String name, Runnable body) {
        try {
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Object virtual = Thread.class.getMethod("ofVirtual").invoke(null);
            virtual = builder.getMethod("name", String.class).invoke(virtual, name);
            return (Thread) builder.getMethod("unstarted", Runnable.class).invoke(virtual, body);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no virtual threads in this JVM", e);
        }
    }

    /**
     * The ticks shared out among {@code threads} virtual threads (through reflection), each counting
     * into its own array, added up when all have ended; a virtual thread sleeping between two ticks
     * leaves its carrier.
     */
    private static void runVirtually(int ticks, int threads, long[] made) {
        long[][] madeBy = new long[threads][3];
        try {
            ExecutorService executor = VirtualThreadsTarget.executor("orders-");
            for (int t = 0; t < threads; t++) {
                int first = t;
                executor.execute(() -> run(first, ticks, threads, madeBy[first]));
            }
            executor.shutdown();
            if (!executor.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the virtual threads did not end");
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        for (long[] own : madeBy) {
            for (int i = 0; i < made.length; i++) {
                made[i] += own[i];
            }
        }
    }

    /** The ticks first, first + step, ... below ticks. */
    private static void run(int first, int ticks, int step, long[] made) {
        for (int tick = first; tick < ticks; tick += step) {
            for (int i = 0; i < 4; i++) {
                try {
                    Stock.reserve(tick * 4 + i);
                } catch (IllegalStateException e) {
                    made[0]++;
                }
            }
            if (Payments.declined(tick)) {
                made[1]++;
            }
            if (tick % 5 == 0) {
                try {
                    Orders.quantity(tick);
                } catch (NumberFormatException e) {
                    made[2]++;
                }
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
