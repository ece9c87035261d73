package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What a thread had used when the agent read its CPU time, beside that time: each figure null when
 * unknown.
 *
 * @param userNanos      CPU time in user mode (utime of /proc/self/task/NID/stat), to the kernel's clock tick
 * @param systemNanos    CPU time in the kernel (stime), to the kernel's clock tick
 * @param allocatedBytes heap bytes allocated since the thread started, as HotSpot counts them
 *                       (com.sun.management.ThreadMXBean.getThreadAllocatedBytes); null for the
 *                       JVM's own threads
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ThreadUsage(Long userNanos, Long systemNanos, Long allocatedBytes) {
}
