package dev.jvmticli.client;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The answer to {@code cpu}: each live platform thread's CPU time at one read. */
public record CpuTimes(List<ThreadCpu> threads) {
    /** A thread's CPU time, -1 when not known. */
    public record ThreadCpu(long id, long cpuNanos) {
    }

    /** The CPU time of each thread by Java id. */
    public Map<Long, Long> byId() {
        Map<Long, Long> byId = new HashMap<>();
        threads.forEach(t -> byId.put(t.id(), t.cpuNanos()));
        return byId;
    }
}
