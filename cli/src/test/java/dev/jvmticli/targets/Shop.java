package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the shop servers ({@link TomcatShop}, {@link JettyShop}) do per request: hash (CPU), take
 * the shared inventory monitor and hold it 3 ms (the hot lock), sleep, take a ReentrantLock
 * briefly, and deadlock a pair of request threads on demand. The catalog (allocation) is not here:
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

    private static final Inventory INVENTORY = new Inventory();
    private static final ReentrantLock LEDGER = new ReentrantLock();
    private static final Orders ORDERS = new Orders();
    private static final Payments PAYMENTS = new Payments();
    private static final CountDownLatch BOTH_SIDES = new CountDownLatch(2);
    private static final Queue<String> DEADLOCKED = new ConcurrentLinkedQueue<>();
    private static volatile long stock;

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
     * The target's commands besides TargetMain's: "port", and "deadlocked": how many of the pair
     * hold their first monitor, then their names, comma-separated.
     */
    public static String answer(String command, int port) {
        return switch (command) {
            case "port" -> Integer.toString(port);
            case "deadlocked" -> DEADLOCKED.size() + " " + String.join(",", DEADLOCKED);
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
