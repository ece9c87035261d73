package dev.jvmticli.client;

import java.time.Duration;
import java.util.Map;

/**
 * {@code heap}: a class histogram of the heap. Made from {@link #HISTOGRAM}, then told the rest by
 * name: {@code HISTOGRAM.withLive(true).withGcWait(Duration.ofSeconds(5))}.
 *
 * @param live   of the reachable objects only (a full collection first)
 * @param gcWait when not null, taken right after the target's own next GC pause, if one comes within it
 */
public record HeapRequest(boolean live, Duration gcWait) implements AgentRequest {
    /** Every object in the heap, at once. */
    public static final HeapRequest HISTOGRAM = new HeapRequest(false, null);

    public HeapRequest withLive(boolean with) {
        return new HeapRequest(with, gcWait);
    }

    public HeapRequest withGcWait(Duration wait) {
        return new HeapRequest(live, wait);
    }

    @Override
    public String command() {
        return "heap";
    }

    @Override
    public Map<String, Object> arguments() {
        return gcWait == null ? Map.of("live", live) : Map.of("live", live, "afterGc", true, "gcWaitMillis", gcWait.toMillis());
    }
}
