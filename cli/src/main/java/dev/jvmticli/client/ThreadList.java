package dev.jvmticli.client;

import java.util.List;

/** The answer to {@code threads}. */
public record ThreadList(List<ThreadEntry> threads) {
}
