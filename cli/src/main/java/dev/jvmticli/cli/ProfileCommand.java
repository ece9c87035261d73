package dev.jvmticli.cli;

import dev.jvmticli.analysis.Profile;
import dev.jvmticli.analysis.ProfileSplit;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.AgentConnector;
import dev.jvmticli.client.ProfileReport;
import dev.jvmticli.client.ProfileStartRequest;
import dev.jvmticli.client.ThreadsRequest;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.VthreadsRequest;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.FlameGraph;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.ProfileView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "profile", mixinStandardHelpOptions = true,
        description = "Sample where the CPU goes (or, with --event wall, where every thread spends its time) for a while: "
            + "the hottest methods and busiest threads, collapsed stacks or a flame graph. The engine is "
            + "async-profiler, loaded into the target on the first profile.")
final class ProfileCommand implements Callable<Integer> {
    private static final List<String> EVENTS = List.of("cpu", "wall", "itimer", "ctimer");

    private final CliContext context;

    @Mixin
    TargetOption target;

    @Mixin
    ReportOptions report;

    @Option(names = "--event", paramLabel = "EVENT", defaultValue = "cpu",
            description = {"cpu (default: CPU time, by perf_events where the kernel permits them, else ctimer), wall (every thread,",
                "running or not: where requests wait), itimer (one process-wide CPU timer), ctimer (a CPU timer per thread)."})
    String event;

    @Option(names = "--interval", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "One sample per DURATION of CPU time (wall: of wall-clock time, per thread); default 10ms, for wall 50ms.")
    Duration interval;

    @Option(names = "--thread", paramLabel = "ID|NAME",
            description = "Only this thread: a Java thread id, or a name as the report prints it (glob: * and ?). Repeatable.")
    List<String> threads;

    @Option(names = "--threads", description = "One root frame per thread in the flame graph and collapsed stacks.")
    boolean byThread;

    ProfileCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        report.validate();
        if (!EVENTS.contains(event)) {
            throw new CliFailure(ExitCode.USAGE, "--event takes cpu, wall, itimer or ctimer");
        }
        Duration every = interval != null ? interval : Duration.ofMillis(event.equals("wall") ? 50 : 10);
        TargetProcess process = target.resolve();
        try (AgentClient client = context.connect(process)) {
            ProfileThreads selection = ProfileThreads.resolve(client, threads);
            start(client, process, event, every);
            SamplingWindow.run(context, client, report.duration, () -> {
                ProfileReport result = stop(client);
                ProfileSplit named = named(client, result, context.err()::println);
                print(result, named, selection, event.equals("wall") ? virtualThreads(client) : null, process.pid());
            });
        }
        return ExitCode.OK.code();
    }

    /** Starts a profile in the target (loading the engine there first if needed). */
    static void start(AgentClient client, TargetProcess process, String event, Duration interval) {
        String library = AgentConnector.profilerLibrary(process).toString();
        client.call(new ProfileStartRequest(library, event, interval), Map.class);
    }

    static ProfileReport stop(AgentClient client) {
        return client.call("profile.stop", Map.of(), ProfileReport.class);
    }

    /**
     * The profile split into the target's samples and the tool's own (ProfileSplit), with its threads
     * named as the live threads are; when the agent cannot list them after the stop, the profile is
     * still worth having: its threads keep the names the engine saw (the OS's, cut to 15 bytes), and
     * why goes to warn.
     */
    static ProfileSplit named(AgentClient client, ProfileReport result, Consumer<String> warn) {
        ProfileSplit profile = ProfileSplit.of(Profile.parse(result.collapsed()), result.ownWork());
        try {
            return profile.named(client.threads(ThreadsRequest.JAVA_THREADS.withVmThreads(true)));
        } catch (AgentError e) {
            warn.accept("jvmti-cli: threads keep the names the OS gives them (cut to 15 bytes): listing the live threads failed: "
                    + e.getMessage());
            return profile;
        }
    }

    /** The target's virtual threads now; null when it has none the agent can walk (before JDK 21, or the walk failed). */
    private ProfileView.VirtualThreads virtualThreads(AgentClient client) {
        try {
            return client.vthreadsIfAny(VthreadsRequest.counts()).map(VirtualDump::summary)
                    .map(s -> new ProfileView.VirtualThreads(s.count(), s.mounted())).orElse(null);
        } catch (AgentError e) {
            context.err().println("jvmti-cli: could not count the virtual threads, which wall-clock sampling does not see unmounted: "
                    + e.getMessage());
            return null;
        }
    }

    /** Prints the profile of the threads selected by their names. */
    private void print(ProfileReport result, ProfileSplit named, ProfileThreads selection, ProfileView.VirtualThreads virtual, long pid) {
        ProfileSplit profile = named.filter(selection::matches);
        if (report.html != null) {
            report.writeHtml(context, FlameGraph.html((result.event().equals("wall") ? "Wall-clock" : "CPU") + " profile of JVM "
                    + target.target + " (" + result.engine() + "), samples", "samples", ProfileView.flame(profile, byThread)));
        }
        if (report.collapsed) {
            context.out().print(FlameGraph.collapsed(ProfileView.flame(profile, byThread)));
            context.out().flush();
        } else if (report.json) {
            JsonOutput.print(context.out(), ProfileView.document(result, profile, virtual));
        } else if (result.event().equals("wall")) {
            ProfileView.printWall(context.out(), result, profile, report.top, ProfileView.unseenVirtualThreads(virtual, pid));
            selection.unmatched(profile.target()).forEach(s -> context.out().println("(no samples of a thread matching '" + s + "')"));
            context.out().flush();
        } else {
            ProfileView.print(context.out(), result, profile, report.top);
            selection.unmatched(profile.target()).forEach(s -> context.out().println("(no samples of a thread matching '" + s + "')"));
            context.out().flush();
        }
    }
}
