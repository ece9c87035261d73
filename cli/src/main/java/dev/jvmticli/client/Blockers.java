package dev.jvmticli.client;

import java.util.List;

/** The answer to {@code blockers}: what each platform thread asked about is blocked on or waits on. */
public record Blockers(List<Blocker> threads) {
    /** One thread's wait. */
    public record Blocker(long id, WaitingFor waitingFor) {
    }
}
