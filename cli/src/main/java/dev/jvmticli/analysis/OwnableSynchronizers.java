package dev.jvmticli.analysis;

import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.OwnedSynchronizers;
import dev.jvmticli.client.StackDump;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ownable synchronizers each thread holds, for jstack's "Locked ownable synchronizers":
 * complete when they come from the agent's heap walk; otherwise only those some thread is parked
 * on, with the reason the others are not known.
 *
 * @param partialBecause null when the list is complete
 */
public record OwnableSynchronizers(Map<Long, List<LockRef>> byOwner, String partialBecause) {
    public static OwnableSynchronizers of(OwnedSynchronizers walk) {
        Map<Long, List<LockRef>> byOwner = new LinkedHashMap<>();
        for (OwnedSynchronizers.Owned owned : walk.owned()) {
            byOwner.computeIfAbsent(owned.ownerId(), k -> new ArrayList<>()).add(owned.lock());
        }
        return new OwnableSynchronizers(byOwner, walk.complete() ? null
                : "the heap holds " + walk.instances() + " synchronizers, more than the agent looks at");
    }

    /** Those some thread of the dump is parked on. */
    public static OwnableSynchronizers parkedOn(StackDump dump, String partialBecause) {
        return new OwnableSynchronizers(LockTable.synchronizersByOwner(dump), partialBecause);
    }

    public boolean complete() {
        return partialBecause == null;
    }

    public List<LockRef> of(long threadId) {
        return byOwner.getOrDefault(threadId, List.of());
    }
}
