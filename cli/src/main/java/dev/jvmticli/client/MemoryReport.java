package dev.jvmticli.client;

import java.util.List;
import java.util.Map;

/**
 * The answer to {@code memory}: the JVM's MXBeans, the kernel's count of what is resident
 * (/proc/self/smaps_rollup in bytes, by its field names) and the native memory tracking summary.
 * A value the JVM would not give is null; residentError and nativeMemoryError say why a part is
 * missing.
 */
public record MemoryReport(Usage heap, Usage nonHeap, List<Pool> pools, List<BufferPool> bufferPools, List<Collector> collectors,
                           Integer threads, Map<String, Long> resident, String residentError, String nativeMemory,
                           String nativeMemoryError) {
    /** A MemoryUsage; max is -1 when the pool has no maximum. */
    public record Usage(long init, long used, long committed, long max) {
    }

    /** A memory pool; type is HEAP or NON_HEAP. */
    public record Pool(String name, String type, Usage usage) {
    }

    /** Direct or mapped buffers: how many, the bytes they use and their total capacity. */
    public record BufferPool(String name, long count, long used, long capacity) {
    }

    public record Collector(String name, long count, long timeMillis) {
    }
}
