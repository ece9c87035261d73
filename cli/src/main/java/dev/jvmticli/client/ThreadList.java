package dev.jvmticli.client;

import java.util.List;

/** The answer to {@code threads}; lockFactsComplete is false when some waits could not be read. */
public record ThreadList(boolean lockFactsComplete, List<ThreadEntry> threads) {
}
