package dev.jvmticli.cli;

import dev.jvmticli.analysis.ClassLoaderMetaspace;
import dev.jvmticli.analysis.NativeAllocations;
import dev.jvmticli.analysis.NmtDiff;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentConnector;
import dev.jvmticli.client.ClassLoadersReport;
import dev.jvmticli.client.ClassLoadersRequest;
import dev.jvmticli.client.MemoryReport;
import dev.jvmticli.client.NativeMemReport;
import dev.jvmticli.client.NativeMemStartRequest;
import dev.jvmticli.client.NativeRecording;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.client.VmInfo;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.ClassLoadersView;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.MemoryView;
import dev.jvmticli.render.NativeMemoryView;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "memory", mixinStandardHelpOptions = true,
        description = "Where the process's memory is: heap and each pool, metaspace, code cache, direct and mapped buffers, "
            + "thread stacks, GC counts and times (the JVM's MXBeans); resident memory and its split (the "
            + "kernel's); the native memory tracking summary. With --native, where native memory goes over a window: "
            + "allocation sites with what was freed (async-profiler's nativemem), and NMT's change since a baseline. "
            + "With --classloaders, each class loader with its classes and metaspace, and the ones that look dead but are "
            + "still reachable (the redeploy leak) with a path from a GC root (one walk of the heap at a safepoint).")
final class MemoryCommand implements Callable<Integer> {
    /** The dead-looking loaders given a path, and the objects named on each. */
    private static final int DEAD_PATHS = 5;
    private static final int MAX_DEPTH = 30;

    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--json", description = "Print one JSON document instead of tables.")
    boolean json;

    @Option(names = "--native", description = {"Where native memory goes over a window: every malloc, calloc, realloc, posix_memalign and",
        "aligned_alloc call by site, with what was freed before the window ended (async-profiler's nativemem,",
        "loaded into the target); and NMT's change since a baseline taken at the start, when the JVM tracks it."})
    boolean nativeWindow;

    @Option(names = "--classloaders", description = {"Each class loader: its classes, its metaspace (the JVM's VM.classloader_stats), its class and",
        "parent; and those that look dead (no instance of their classes held from outside their own static fields,",
        "no thread in their code) but are still reachable, each with the shortest path from a GC root to it.",
        "One walk of the heap from its roots at a safepoint, as heap --paths: the pause is printed."})
    boolean classLoaders;

    @Option(names = "--max-objects", paramLabel = "N",
            description = "With --classloaders: refuse a heap with more objects reachable than this, or 4 references an object: the bound on the agent's memory in the target (default: 1000000).")
    Long maxObjects;

    @Option(names = "--max-virtual-threads", paramLabel = "N",
            description = {"With --classloaders: read the stacks of this many virtual threads at most, one at a time after the walk",
                "(default: 100000); past it they are counted, not read, and no loader is said to look dead."})
    Long maxVirtualThreads;

    @Option(names = "--duration", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --native: how long the window is (default: 10s); Ctrl-C ends it early and still reports.")
    Duration duration;

    @Option(names = "--top", paramLabel = "N", description = "With --native: sites listed (default: 10); with --classloaders: loaders listed (default: 20).")
    Integer top;

    @Option(names = "--max-recording", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "With --native: stop recording once the recording takes SIZE in the target, 64k to 1g (default: 256m).")
    Long maxRecording;

    MemoryCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (nativeWindow && classLoaders) {
            throw new CliFailure(ExitCode.USAGE, "--native and --classloaders are two commands: one at a time");
        }
        if (!nativeWindow && (duration != null || maxRecording != null) || !nativeWindow && !classLoaders && top != null) {
            throw new CliFailure(ExitCode.USAGE, "--duration and --max-recording are options of memory --native, --top of memory --native and --classloaders");
        }
        if (!classLoaders && (maxObjects != null || maxVirtualThreads != null)) {
            throw new CliFailure(ExitCode.USAGE, "--max-objects and --max-virtual-threads are options of memory --classloaders");
        }
        if (maxVirtualThreads != null && (maxVirtualThreads < 0 || maxVirtualThreads > 100_000_000)) {
            throw new CliFailure(ExitCode.USAGE, "--max-virtual-threads must be between 0 and 100000000");
        }
        if (maxObjects != null && (maxObjects < 10_000 || maxObjects > 200_000_000)) {
            throw new CliFailure(ExitCode.USAGE, "--max-objects must be between 10000 and 200000000");
        }
        if (maxRecording != null && (maxRecording < 64L << 10 || maxRecording > 1L << 30)) {
            throw new CliFailure(ExitCode.USAGE, "--max-recording takes a size from 64k to 1g");
        }
        if (top != null && top <= 0) {
            throw new CliFailure(ExitCode.USAGE, "--top takes a positive number");
        }
        TargetProcess process = target.resolve();
        if (nativeWindow) {
            return nativeWindow(process);
        }
        if (classLoaders) {
            return classLoaders(process);
        }
        MemoryReport report;
        VmInfo.Flag stackSize;
        try (AgentClient client = context.connect(process)) {
            report = memory(client);
            stackSize = client.vm().flags().get("ThreadStackSize");
        }
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("memory", report);
            doc.put("threadStackSize", stackSize);
            JsonOutput.print(context.out(), doc);
        } else {
            MemoryView.print(context.out(), report, stackSize);
        }
        return ExitCode.OK.code();
    }

    private int nativeWindow(TargetProcess process) {
        try (AgentClient client = context.connect(process)) {
            client.call(new NativeMemStartRequest(AgentConnector.profilerLibrary(process).toString(), maxRecording != null ? maxRecording : 256L << 20),
                    Map.class);
            SamplingWindow.run(context, client, duration != null ? duration : Duration.ofSeconds(10), () -> {
                NativeMemReport report = client.call("nativemem.stop", Map.of(), NativeMemReport.class);
                if (report.recordingError() != null) {
                    throw new CliFailure(ExitCode.FAILURE, "the native allocation recording could not be read: " + report.recordingError());
                }
                List<NativeRecording.Call> calls;
                try {
                    calls = NativeRecording.read(report.recording());
                } catch (IOException e) {
                    throw new CliFailure(ExitCode.FAILURE, "the native allocation recording could not be read: " + e.getMessage(), e);
                }
                Set<Long> ownTids = report.watcherTid() == null ? Set.of(report.agentTid()) : Set.of(report.agentTid(), report.watcherTid());
                NativeAllocations.Result sites = NativeAllocations.of(calls, ownTids, MemoryCommand::jdkClass);
                NmtDiff.Diff nmt = report.nativeMemoryDiff() == null ? null : NmtDiff.parse(report.nativeMemoryDiff());
                if (json) {
                    JsonOutput.print(context.out(), NativeMemoryView.document(report, sites, nmt));
                } else {
                    NativeMemoryView.print(context.out(), report, sites, nmt, top != null ? top : 10);
                }
            });
        }
        return ExitCode.OK.code();
    }

    private int classLoaders(TargetProcess process) {
        ClassLoadersReport report;
        try (AgentClient client = context.connect(process)) {
            report = client.call(new ClassLoadersRequest(DEAD_PATHS, MAX_DEPTH, maxObjects != null ? maxObjects : 1_000_000,
                            maxVirtualThreads != null ? maxVirtualThreads : 100_000),
                    ClassLoadersReport.class, HeapCommand.answerTimeout(context, client.vm()));
        }
        Map<Long, ClassLoaderMetaspace.Metaspace> metaspace = ClassLoaderMetaspace.of(report);
        if (json) {
            JsonOutput.print(context.out(), ClassLoadersView.document(report, metaspace));
        } else {
            ClassLoadersView.print(context.out(), report, metaspace, top != null ? top : 20);
        }
        context.out().flush();
        return ExitCode.OK.code();
    }

    /** Whether the class's package is one of the JDK's own modules' (java.*, jdk.*), as this CLI's runtime has them. */
    private static boolean jdkClass(String className) {
        int dot = className.lastIndexOf('.');
        return dot > 0 && JDK_PACKAGES.contains(className.substring(0, dot));
    }

    private static final Set<String> JDK_PACKAGES = ModuleLayer.boot().modules().stream()
            .filter(m -> m.getName().startsWith("java.") || m.getName().startsWith("jdk."))
            .flatMap(m -> m.getPackages().stream()).collect(Collectors.toUnmodifiableSet());

    static MemoryReport memory(AgentClient client) {
        return client.call("memory", Map.of(), MemoryReport.class);
    }
}
