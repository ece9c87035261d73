package dev.jvmticli.cli;

import java.util.Collections;
import java.util.Iterator;

/**
 * Marks an option whose value names a thread ({@code completionCandidates = ThreadCompletion.class}):
 * the interactive shell completes it with the target's live thread names (and ids, for an option
 * named {@code --thread}). It holds no candidates itself, so static completion scripts offer none.
 */
public final class ThreadCompletion implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
        return Collections.emptyIterator();
    }
}
