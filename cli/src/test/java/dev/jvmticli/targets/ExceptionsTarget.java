package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A target that knows which exceptions it made: {@code run N} runs N ticks of about a millisecond
 * each on the thread {@code orders}; a tick creates and catches 4 IllegalStateExceptions in
 * {@link Stock#reserve} ("stock I"), one {@link PaymentDeclined} (the target's own class, a
 * constructor chain of its own) in {@link Payments#charge} ("declined card I"), and every 5th tick
 * one NumberFormatException that Integer.parseInt makes for {@link Orders#quantity}. It answers how
 * many of each it made: {@code ran ise=.. declined=.. nfe=..}. Each is caught where it is counted:
 * the IllegalStateExceptions and NumberFormatExceptions in {@code run}, PaymentDeclined in
 * {@link Payments#declined}. {@code escape N} starts N threads {@code escaper-I}, each ended by an
 * {@link Escaped} thrown in {@link Escapes#leave} that nothing catches, and answers how many its
 * threads' uncaught exception handler saw: {@code escaped N}; {@code escape-virtual N} the same
 * with virtual threads (JDK 21+, through reflection). Written in Java 11, the oldest JDK targets run
 * on.
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
            if (!line.startsWith("run ")) {
                return "unknown command " + line;
            }
            int ticks = Integer.parseInt(line.substring(4));
            long[] made = new long[3];
            Thread orders = new Thread(() -> run(ticks, made), "orders");
            orders.start();
            try {
                orders.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "ran ise=" + made[0] + " declined=" + made[1] + " nfe=" + made[2];
        });
    }

    private static long escape(int threads, boolean virtual) {
        AtomicLong escaped = new AtomicLong();
        for (int i = 0; i < threads; i++) {
            int thread = i;
            Runnable leave = () -> Escapes.leave(thread);
            Thread escaper = virtual ? virtual("escaper-" + i, leave) : new Thread(leave, "escaper-" + i);
            escaper.setUncaughtExceptionHandler((t, e) -> {
                if (e instanceof Escaped) {
                    escaped.incrementAndGet();
                }
            });
            escaper.start();
            try {
                escaper.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return escaped.get();
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

    private static void run(int ticks, long[] made) {
        for (int tick = 0; tick < ticks; tick++) {
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
