package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.VthreadsRequest;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/** {@code --thread ID|NAME}: the threads a command is about; a name may be a glob. */
public final class ThreadSelection {
    @Option(names = "--thread", paramLabel = "ID|NAME",
            description = "Only this thread: a Java thread id, or a name (glob: * and ?). Repeatable.")
    List<String> selectors;

    /** The chosen ids among the kinds of thread given, or null for all threads. */
    public Set<Long> resolve(AgentClient client, ThreadKinds kinds) {
        if (selectors == null || selectors.isEmpty()) {
            return null;
        }
        List<ThreadEntry> threads = new ArrayList<>();
        if (kinds.platform()) {
            threads.addAll(client.threads().threads());
        }
        if (kinds.virtualRequired()) {
            client.vthreads(VthreadsRequest.of(null)).threads().forEach(v -> threads.add(v.thread()));
        } else if (kinds.virtualThreads()) {
            client.vthreadsIfAny(VthreadsRequest.of(null)).map(VirtualDump::threads).orElse(List.of())
                    .forEach(v -> threads.add(v.thread()));
        }
        Set<Long> ids = new LinkedHashSet<>();
        for (String selector : selectors) {
            Pattern name = Glob.toPattern(selector);
            List<Long> matches = threads.stream()
                    .filter(t -> Long.toString(t.id()).equals(selector) || name.matcher(t.name()).matches())
                    .map(ThreadEntry::id)
                    .toList();
            if (matches.isEmpty()) {
                throw new CliFailure(ExitCode.FAILURE, "no live thread matches '" + selector + "'");
            }
            ids.addAll(matches);
        }
        return ids;
    }
}
