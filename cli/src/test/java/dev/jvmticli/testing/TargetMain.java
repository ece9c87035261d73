package dev.jvmticli.testing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The loop every test target ends with: prints READY, then answers one line per command read
 * from stdin, and exits when stdin closes. Built-in commands:
 * <ul>
 *   <li>{@code threads}: the target's own view, {@code id:state:base64(name)} joined by spaces</li>
 *   <li>{@code exit}: exits at once</li>
 * </ul>
 * Anything else goes to the scenario's own handler. Written in Java 11, the oldest JDK targets run on.
 */
public final class TargetMain {
    private TargetMain() {
    }

    public static void serve(Function<String, String> handler) throws Exception {
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("exit")) {
                Runtime.getRuntime().halt(0);
            }
            System.out.println(line.equals("threads") ? ownView() : handler.apply(line));
            System.out.flush();
        }
        Runtime.getRuntime().halt(0);
    }

    public static void serve() throws Exception {
        serve(line -> "unknown command " + line);
    }

    /** Every live thread as the JVM itself sees it. */
    public static String ownView() {
        Map<Thread, StackTraceElement[]> all = Thread.getAllStackTraces();
        return all.keySet().stream()
                .sorted(Comparator.comparingLong(Thread::getId))
                .map(t -> t.getId() + ":" + t.getState() + ":" + Base64.getEncoder().encodeToString(t.getName().getBytes(StandardCharsets.UTF_8)))
                .collect(Collectors.joining(" "));
    }

    /** Starts a daemon thread, so that a closed stdin always ends the target. */
    public static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Counts down and waits for the others: the threads of a scenario set out together. */
    public static void arrive(CountDownLatch latch) {
        latch.countDown();
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the named thread reaches the state, or fails after 10 s. */
    public static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (thread.getState() != state) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(thread.getName() + " never reached " + state + ", is " + thread.getState());
            }
            Thread.sleep(5);
        }
    }
}
