package dev.jvmticli.client;

import java.util.Map;

/**
 * What an answer asked with usage carries beside the threads' CPU times: per thread, by
 * {@link RunningThread#identity()}, the figures read with its CPU time; and the JVM's pause totals
 * read before and after the agent's work for the answer, so that an interval from one answer's
 * after to the next one's before holds none of the agent's own work.
 */
public record UsageRead(Map<String, ThreadUsage> threads, PauseTotals pausesBefore, PauseTotals pausesAfter) {
}
