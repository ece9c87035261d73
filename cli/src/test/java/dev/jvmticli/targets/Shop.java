package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * What the shop servers ({@link TomcatShop}, {@link JettyShop}) do per request: hash (CPU), take
 * the shared inventory monitor and hold it 3 ms (the hot lock), sleep, take a ReentrantLock
 * briefly, refuse checkouts with exceptions it counts (while told to), and deadlock a pair of
 * request threads on demand. The catalog (allocation) is not here:
 * each server's own catalog servlet or handler allocates, through JDK methods only, so that its
 * name shows in an allocation site only when the site names the first frame that is not the JDK's.
 */
public final class Shop {
    /** What an endpoint answers to a GET with this query string (null when there is none). */
    public interface Endpoint {
        String answer(String query);
    }

    /** Every path but the catalog's, with its endpoint. */
    public static final Map<String, Endpoint> ENDPOINTS = Map.of(
            "/hash", query -> hash(),
            "/reserve", query -> reserve(),
            "/sleep", query -> sleep(),
            "/ledger", query -> ledger(),
            "/checkout", query -> checkout(),
            "/deadlock", Shop::deadlock);

    /** The path of the servers' own catalog servlet or handler. */
    public static final String CATALOG = "/catalog";

    /** The hot lock's class, so that a lock table names it. */
    public static final class Inventory {
    }

    /** The two monitors of the deadlock pair. */
    public static final class Orders {
    }

    public static final class Payments {
    }

    /** The shop's own exception: a checkout refused. */
    public static final class OutOfStock extends Exception {
        private static final long serialVersionUID = 1L;

        OutOfStock(long order) {
            super("order " + order + " out of stock");
        }
    }

    /** The shop's exception that it does not catch: the servlet container or Jetty answers the request with a 500. */
    public static final class PaymentFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PaymentFailed(long order) {
            super("order " + order + " not paid");
        }
    }

    /** While failing, every FAIL_EVERY-th refused checkout throws a PaymentFailed out of the shop. */
    private static final int FAIL_EVERY = 20;

    private static final Inventory INVENTORY = new Inventory();
    private static final ReentrantLock LEDGER = new ReentrantLock();
    private static final Orders ORDERS = new Orders();
    private static final Payments PAYMENTS = new Payments();
    private static final CountDownLatch BOTH_SIDES = new CountDownLatch(2);
    private static final Queue<String> DEADLOCKED = new ConcurrentLinkedQueue<>();
    private static volatile long stock;
    /** Held to read refusing and count, and taken whole to change refusing and read the counts: no checkout is half counted. */
    private static final ReadWriteLock REFUSALS = new ReentrantReadWriteLock();
    private static final AtomicLong ORDERS_SEEN = new AtomicLong();
    private static final AtomicLong OUT_OF_STOCK = new AtomicLong();
    private static final AtomicLong BAD_QUANTITIES = new AtomicLong();
    private static final AtomicLong FAILED = new AtomicLong();
    private static final AtomicLong NOTED = new AtomicLong();
    private static boolean refusing;
    private static boolean failing;

    private Shop() {
    }

    /** Two hundred rounds of SHA-256 over a 256-byte block; the digest in hex. */
    public static String hash() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] block = new byte[256];
            for (int round = 0; round < 200; round++) {
                sha.update(block);
                sha.digest(block, 0, 32);
            }
            return java.util.HexFormat.of().formatHex(block, 0, 32);
        } catch (NoSuchAlgorithmException | java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Holds the inventory monitor 3 ms. */
    public static String reserve() {
        synchronized (INVENTORY) {
            pause(3);
            return Long.toString(++stock);
        }
    }

    public static String sleep() {
        pause(5);
        return "slept";
    }

    /** Holds the ledger's ReentrantLock for 1 ms. */
    public static String ledger() {
        LEDGER.lock();
        try {
            pause(1);
            return "booked";
        } finally {
            LEDGER.unlock();
        }
    }

    /**
     * While refusing: one {@link OutOfStock} made by {@link #take} (thrown on by {@link #reserveOrder})
     * and one NumberFormatException that Integer.parseInt makes for {@link #quantity}, both caught and
     * counted, and the answer "refused" (a 200 all the same); else "checked out". While failing too,
     * every FAIL_EVERY-th order then throws a {@link PaymentFailed} out of the shop, through this
     * method's finally, counted before it is thrown.
     */
    public static String checkout() {
        REFUSALS.readLock().lock();
        try {
            if (!refusing) {
                return "checked out";
            }
            long order = ORDERS_SEEN.incrementAndGet();
            try {
                reserveOrder(order);
            } catch (OutOfStock e) {
                OUT_OF_STOCK.incrementAndGet();
            }
            try {
                quantity("qty" + order);
            } catch (NumberFormatException e) {
                BAD_QUANTITIES.incrementAndGet();
            }
            if (failing && order % FAIL_EVERY == 0) {
                FAILED.incrementAndGet();
                charge(order);
            }
            return "refused";
        } finally {
            REFUSALS.readLock().unlock();
        }
    }

    /** Notes the order refused and throws its OutOfStock on. */
    static void reserveOrder(long order) throws OutOfStock {
        try {
            take(order);
        } catch (OutOfStock e) {
            NOTED.incrementAndGet();
            throw e;
        }
    }

    static void take(long order) throws OutOfStock {
        throw new OutOfStock(order);
    }

    static void charge(long order) {
        throw new PaymentFailed(order);
    }

    static int quantity(String field) {
        return Integer.parseInt(field);
    }

    /**
     * Starts (failing too, or not) or stops refusing checkouts; the counts of what was thrown since
     * the last start: caught (outOfStock, badQuantity) and thrown out of the shop (failed).
     */
    private static String refuse(boolean on, boolean fail) {
        REFUSALS.writeLock().lock();
        try {
            if (on) {
                OUT_OF_STOCK.set(0);
                BAD_QUANTITIES.set(0);
                FAILED.set(0);
            }
            refusing = on;
            failing = fail;
            return "outOfStock=" + OUT_OF_STOCK.get() + " badQuantity=" + BAD_QUANTITIES.get() + " failed=" + FAILED.get();
        } finally {
            REFUSALS.writeLock().unlock();
        }
    }

    /**
     * Side "a" (query {@code side=a}) takes Orders then Payments, any other side the reverse, after
     * both hold their first monitor: the two request threads deadlock and never answer.
     */
    public static String deadlock(String query) {
        boolean sideA = "side=a".equals(query);
        Object first = sideA ? ORDERS : PAYMENTS;
        Object second = sideA ? PAYMENTS : ORDERS;
        synchronized (first) {
            DEADLOCKED.add(Thread.currentThread().getName());
            TargetMain.arrive(BOTH_SIDES);
            synchronized (second) {
                return "unreachable";
            }
        }
    }

    /**
     * The target's commands besides TargetMain's: "port"; "deadlocked": how many of the pair hold
     * their first monitor, then their names, comma-separated; "refuse", "refuse-failing" and
     * "accept": checkouts start (also failing some, or not) or stop throwing, answered
     * {@code outOfStock=N badQuantity=M failed=K} (thrown since the last start).
     */
    public static String answer(String command, int port) {
        return switch (command) {
            case "port" -> Integer.toString(port);
            case "deadlocked" -> DEADLOCKED.size() + " " + String.join(",", DEADLOCKED);
            case "refuse" -> refuse(true, false);
            case "refuse-failing" -> refuse(true, true);
            case "accept" -> refuse(false, false);
            default -> "unknown " + command;
        };
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
