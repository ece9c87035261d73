package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.SynchronousQueue;

/**
 * A target whose exceptions are thrown again on their way: {@code run N} runs N rounds on the
 * thread {@code rethrows}, each throwing four exceptions that {@link #run} catches, each of which
 * JVMTI sees thrown more than once:
 * <ul>
 * <li>a {@link Refused}, thrown in {@link Ledger#book} through the {@code finally} of
 * {@link Ledger#entry} (thrown twice);</li>
 * <li>a {@link Suspicious}, thrown in {@link Audit#check}, caught, noted and thrown on by
 * {@link Audit#review} (thrown twice);</li>
 * <li>a {@link Sealed}, thrown in {@link Vault#open} out of a try-with-resources, a catch that
 * throws it on and two synchronized blocks (each of which throws it again);</li>
 * <li>a {@link Handed}, thrown and caught in {@link Handoff#make} on the thread {@code handoff},
 * handed over and thrown again by {@link Handoff#take} on {@code rethrows} (thrown twice, on two
 * threads).</li>
 * </ul>
 * It answers how many of each it caught: {@code ran refused=.. suspicious=.. sealed=.. handed=..}.
 * {@code escape N} starts N threads, each ended by a {@link Lost} thrown in {@link Escapes#leave}
 * through a {@code finally} and a catch that throws it on, and answers how many its threads'
 * uncaught exception handler saw: {@code escaped N}. Written in Java 11, the oldest JDK targets run
 * on.
 */
public final class RethrowsTarget {
    private RethrowsTarget() {
    }

    public static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(int round) {
            super("refused " + round);
        }
    }

    public static final class Suspicious extends Exception {
        private static final long serialVersionUID = 1L;

        Suspicious(int round) {
            super("suspicious " + round);
        }
    }

    public static final class Sealed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Sealed(int round) {
            super("sealed " + round);
        }
    }

    public static final class Handed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Handed(int round) {
            super("handed " + round);
        }
    }

    public static final class Lost extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Lost(int thread) {
            super("lost " + thread);
        }
    }

    static final class Ledger {
        private static long entries;

        private Ledger() {
        }

        static void entry(int round) {
            try {
                book(round);
            } finally {
                entries++;
            }
        }

        static void book(int round) {
            throw new Refused(round);
        }
    }

    static final class Audit {
        private static long noted;

        private Audit() {
        }

        static void review(int round) throws Suspicious {
            try {
                check(round);
            } catch (Suspicious e) {
                noted++;
                throw e;
            }
        }

        static void check(int round) throws Suspicious {
            throw new Suspicious(round);
        }
    }

    static final class Vault {
        private static final Object OUTER = new Object();
        private static final Object INNER = new Object();
        private static long closed;

        private Vault() {
        }

        static void open(int round) {
            synchronized (OUTER) {
                synchronized (INNER) {
                    try (AutoCloseable door = () -> closed++) {
                        throw new Sealed(round);
                    } catch (Sealed e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
    }

    /** The thread handoff makes each Handed and catches it; take throws that same object again. */
    static final class Handoff {
        private static final SynchronousQueue<Integer> ROUNDS = new SynchronousQueue<>();
        private static final SynchronousQueue<Handed> MADE = new SynchronousQueue<>();

        private Handoff() {
        }

        static void serve() {
            Thread handoff = new Thread(() -> {
                try {
                    while (true) {
                        MADE.put(make(ROUNDS.take()));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "handoff");
            handoff.setDaemon(true);
            handoff.start();
        }

        static Handed make(int round) {
            try {
                throw new Handed(round);
            } catch (Handed e) {
                return e;
            }
        }

        static void take(int round) throws InterruptedException {
            ROUNDS.put(round);
            throw MADE.take();
        }
    }

    static final class Escapes {
        private Escapes() {
        }

        static void leave(int thread) {
            try {
                try {
                    throw new Lost(thread);
                } finally {
                    Ledger.entries++;
                }
            } catch (Lost e) {
                Audit.noted++;
                throw e;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Handoff.serve();
        TargetMain.serve(line -> {
            if (line.startsWith("escape ")) {
                return "escaped " + escape(Integer.parseInt(line.substring(7)));
            }
            if (!line.startsWith("run ")) {
                return "unknown command " + line;
            }
            long[] caught = new long[4];
            int rounds = Integer.parseInt(line.substring(4));
            Thread rethrows = new Thread(() -> run(rounds, caught), "rethrows");
            rethrows.start();
            try {
                rethrows.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "ran refused=" + caught[0] + " suspicious=" + caught[1] + " sealed=" + caught[2] + " handed=" + caught[3];
        });
    }

    private static void run(int rounds, long[] caught) {
        for (int round = 0; round < rounds; round++) {
            try {
                Ledger.entry(round);
            } catch (Refused e) {
                caught[0]++;
            }
            try {
                Audit.review(round);
            } catch (Suspicious e) {
                caught[1]++;
            }
            try {
                Vault.open(round);
            } catch (Sealed e) {
                caught[2]++;
            }
            try {
                Handoff.take(round);
            } catch (Handed e) {
                caught[3]++;
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static long escape(int threads) {
        return Escapers.count(threads, thread -> new Thread(() -> Escapes.leave(thread), "escaper-" + thread), Lost.class);
    }
}
