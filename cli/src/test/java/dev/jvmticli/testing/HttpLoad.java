package dev.jvmticli.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * HTTP load on a loopback server from this JVM: a few client threads send GETs round the paths
 * given, each with a short pause between two requests, and record every request's start, latency
 * and outcome. It stops by itself after its longest duration or request count, or at close.
 */
public final class HttpLoad implements AutoCloseable {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_REQUESTS = 1_000_000;
    private static final long PAUSE_MILLIS = 2;

    /** One request: when it started (System.nanoTime), how long it took, and why it failed (null when it did not). */
    public record Sample(long startNanos, long latencyNanos, String failure) {
    }

    /** From one System.nanoTime to another. */
    public record Window(long fromNanos, long toNanos) {
        boolean holds(Sample sample) {
            return sample.startNanos() >= fromNanos && sample.startNanos() < toNanos;
        }
    }

    /** The requests that started in some windows. */
    public record Stats(int requests, int failures, int slow, double p50Millis, double p99Millis, List<String> firstFailures) {
        /** Requests slower than this count as slow. */
        public static final Duration SLOW = Duration.ofSeconds(1);

        @Override
        public String toString() {
            return String.format("%d requests, %d failed, %d slower than %d ms, p50 %.1f ms, p99 %.1f ms",
                    requests, failures, slow, SLOW.toMillis(), p50Millis, p99Millis);
        }
    }

    private final URI base;
    private final List<String> paths;
    private final long deadline;
    private final HttpClient client;
    private final List<Thread> clients = new ArrayList<>();
    private final List<Sample> samples = new ArrayList<>();
    private final AtomicInteger sent = new AtomicInteger();
    private volatile boolean closed;

    private HttpLoad(URI base, List<String> paths, Duration longest) {
        this.base = base;
        this.paths = List.copyOf(paths);
        this.deadline = System.nanoTime() + longest.toNanos();
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(REQUEST_TIMEOUT).build();
    }

    /** Starts the client threads on base + each of paths in turn, for at most longest. */
    public static HttpLoad start(URI base, List<String> paths, int clientThreads, Duration longest) {
        HttpLoad load = new HttpLoad(base, paths, longest);
        for (int i = 0; i < clientThreads; i++) {
            int first = i;
            Thread thread = new Thread(() -> load.send(first), "http-load-" + i);
            thread.setDaemon(true);
            load.clients.add(thread);
            thread.start();
        }
        return load;
    }

    private void send(int first) {
        int next = first;
        while (!closed && System.nanoTime() < deadline && sent.incrementAndGet() <= MAX_REQUESTS) {
            URI uri = base.resolve(paths.get(next++ % paths.size()));
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build();
            long start = System.nanoTime();
            String failure;
            try {
                HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                failure = response.statusCode() == 200 ? null : uri.getPath() + ": HTTP " + response.statusCode();
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                failure = uri.getPath() + ": " + e;
            }
            record(new Sample(start, System.nanoTime() - start, failure));
            try {
                Thread.sleep(PAUSE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void record(Sample sample) {
        synchronized (samples) {
            samples.add(sample);
            samples.notifyAll();
        }
    }

    /** Waits until count requests have succeeded since the load started: the server is warm and busy. */
    public void awaitSucceeded(int count, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (samples) {
            while (samples.stream().filter(s -> s.failure() == null).count() < count) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("the load got " + samples.size() + " answers in " + timeout.toSeconds()
                            + " s, fewer than " + count + " good ones: " + stats(List.of(new Window(Long.MIN_VALUE, Long.MAX_VALUE))));
                }
                TimeUnit.NANOSECONDS.timedWait(samples, left);
            }
        }
    }

    /** Whether every client thread still sends: a check under load needs it at its end. */
    public boolean running() {
        return clients.stream().allMatch(Thread::isAlive);
    }

    /** The windows while each command ran, and one as long right after each, without the tool. */
    public record ToolWindows(List<Window> withTool, List<Window> withoutTool) {
    }

    /**
     * Runs each CLI command (the pid inserted after its first word) in a JVM of its own, as a user's
     * would, not in the load generator's, checks it exits 0, and follows it with a window as long
     * without the tool: both windows see the same machine.
     */
    public static ToolWindows runEach(List<List<String>> commands, String pid) throws InterruptedException {
        List<Window> withTool = new ArrayList<>();
        List<Window> withoutTool = new ArrayList<>();
        for (List<String> command : commands) {
            List<String> args = new ArrayList<>(command);
            args.add(1, pid);
            long start = System.nanoTime();
            CliRun.Result result = CliProcess.run(Jdks.current(), args.toArray(String[]::new));
            long end = System.nanoTime();
            if (result.exit() != 0) {
                throw new AssertionError(args + ": " + result);
            }
            withTool.add(new Window(start, end));
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(end - start));
            withoutTool.add(new Window(end, System.nanoTime()));
        }
        return new ToolWindows(withTool, withoutTool);
    }

    /** The requests that started in any of the windows. */
    public Stats stats(List<Window> windows) {
        List<Sample> window;
        synchronized (samples) {
            window = samples.stream().filter(s -> windows.stream().anyMatch(w -> w.holds(s))).toList();
        }
        long[] latencies = window.stream().mapToLong(Sample::latencyNanos).sorted().toArray();
        List<String> failures = window.stream().map(Sample::failure).filter(f -> f != null).toList();
        int slow = (int) window.stream().filter(s -> s.latencyNanos() > Stats.SLOW.toNanos()).count();
        return new Stats(window.size(), failures.size(), slow, percentile(latencies, 50), percentile(latencies, 99),
                failures.subList(0, Math.min(5, failures.size())));
    }

    /** How many of the requests that came back so far the predicate accepts. */
    public int count(Predicate<Sample> which) {
        synchronized (samples) {
            return (int) samples.stream().filter(which).count();
        }
    }

    private static double percentile(long[] sorted, int percent) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
        return sorted[Math.max(rank, 0)] / 1e6;
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        for (Thread thread : clients) {
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(REQUEST_TIMEOUT.toSeconds() + 1));
        }
    }
}
