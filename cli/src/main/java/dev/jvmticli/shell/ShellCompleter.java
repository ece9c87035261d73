package dev.jvmticli.shell;

import dev.jvmticli.cli.ThreadCompletion;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.render.Printable;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.LineReader;
import org.jline.reader.ParsedLine;
import org.jline.reader.impl.completer.FileNameCompleter;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Tab completion from the picocli model: command names, then the options of the command being
 * typed, enum values, and for thread options the target's live threads, asked of the agent (virtual
 * ones too, up to {@link Shell#VIRTUAL_NAMES_MAX}).
 */
final class ShellCompleter implements Completer {
    private static final long THREADS_TTL_NANOS = 2_000_000_000L;

    private final Map<String, CommandLine> commands;
    private final Supplier<LiveThreads> liveThreads;
    private final FileNameCompleter files = new FileNameCompleter();
    private LiveThreads threads;
    private long threadsAt;
    private boolean leftOutTold;

    /**
     * The target's threads to complete: platform and virtual ones, and how many virtual threads
     * were too many to list (0: none left out).
     */
    record LiveThreads(List<ThreadEntry> threads, long virtualLeftOut) {
        static final LiveThreads NONE = new LiveThreads(List.of(), 0);
    }

    ShellCompleter(Map<String, CommandLine> commands, Supplier<LiveThreads> liveThreads) {
        this.commands = commands;
        this.liveThreads = liveThreads;
    }

    @Override
    public void complete(LineReader reader, ParsedLine line, List<Candidate> candidates) {
        ShellLine.Unfinished typing = ShellLine.unfinished(line.line().substring(0, line.cursor()));
        switch (typing.place()) {
            case FILE -> files.complete(reader, line, candidates);
            case FILTER -> ShellLine.FILTERS.forEach((name, usage) -> candidates.add(new Candidate(name, name, null, usage, null, null, true)));
            case COMMAND -> completeCommand(reader, typing.words(), candidates);
            case OTHER -> { }
        }
    }

    private void completeCommand(LineReader reader, List<String> segment, List<Candidate> candidates) {
        boolean watched = !segment.isEmpty() && segment.get(0).equals("watch");
        if (watched) {
            ShellLine.Watch watch = ShellLine.Watch.of(segment);
            if (watch.intervalOption() && watch.interval() == null) {
                return; // the interval
            }
            segment = watch.command();
        }
        if (segment.isEmpty() || segment.size() == 1 && segment.get(0).equals("help")) {
            commandNames(candidates, segment.isEmpty() && !watched);
            return;
        }
        CommandLine command = commands.get(segment.get(0));
        if (command == null) {
            return;
        }
        CommandSpec spec = command.getCommandSpec();
        OptionSpec previous = segment.size() > 1 ? spec.findOption(segment.get(segment.size() - 1)) : null;
        if (previous != null && previous.arity().max() > 0) {
            optionValues(reader, previous, candidates);
            return;
        }
        for (OptionSpec option : spec.options()) {
            if (!option.hidden()) {
                String description = option.description().length == 0 ? null : option.description()[0];
                for (String name : option.names()) {
                    candidates.add(new Candidate(name, name, null, description, null, option.longestName(), true));
                }
            }
        }
    }

    private void commandNames(List<Candidate> candidates, boolean withBuiltins) {
        commands.forEach((name, command) -> {
            String[] description = command.getCommandSpec().usageMessage().description();
            candidates.add(new Candidate(name, name, null, description.length == 0 ? null : description[0], null, null, true));
        });
        if (withBuiltins) {
            candidates.add(new Candidate("watch", "watch", null, "repeat a command every -n SECONDS until Ctrl-C", null, null, true));
            candidates.add(new Candidate("help", "help", null, "the commands, or the options of one", null, null, true));
            candidates.add(new Candidate("exit", "exit", null, "leave the shell", null, null, true));
        }
    }

    private void optionValues(LineReader reader, OptionSpec option, List<Candidate> candidates) {
        Iterable<String> values = option.completionCandidates();
        boolean threadOption = values instanceof ThreadCompletion || option.longestName().equals("--thread");
        if (!threadOption) {
            if (values != null) {
                values.forEach(value -> candidates.add(new Candidate(value)));
            }
            return;
        }
        LiveThreads live = threads();
        if (live.virtualLeftOut() > 0 && !leftOutTold) {
            leftOutTold = true; // once for each time they are asked for, not on every Tab
            reader.printAbove("(" + live.virtualLeftOut() + " virtual threads are not completed: more than "
                    + Shell.VIRTUAL_NAMES_MAX + "; type a virtual thread's id or name in full)");
        }
        for (ThreadEntry thread : live.threads()) {
            if (thread.agent()) {
                continue; // the tool's own thread is not the target's
            }
            if (!thread.name().isEmpty() && thread.name().codePoints().noneMatch(Character::isISOControl)) {
                candidates.add(new Candidate(thread.name(), thread.name(), null,
                        (thread.virtual() ? "virtual, id " : "id ") + thread.id() + ", " + thread.state(), null, null, true));
            }
            if (option.longestName().equals("--thread")) {
                String id = Long.toString(thread.id());
                candidates.add(new Candidate(id, id, null, Printable.text(thread.name()), null, null, true));
            }
        }
    }

    /** The target's threads, asked again at most every 2 s; none when the agent cannot be asked. */
    private LiveThreads threads() {
        if (threads == null || System.nanoTime() - threadsAt > THREADS_TTL_NANOS) {
            try {
                threads = liveThreads.get();
            } catch (RuntimeException e) {
                threads = LiveThreads.NONE;
            }
            threadsAt = System.nanoTime();
            leftOutTold = false;
        }
        return threads;
    }
}
