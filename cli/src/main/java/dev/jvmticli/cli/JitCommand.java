package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.JitReport;
import dev.jvmticli.client.JitRequest;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JitView;
import dev.jvmticli.render.JitView.CompiledRow;
import dev.jvmticli.render.JitView.StubRow;
import dev.jvmticli.render.JsonOutput;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "jit", mixinStandardHelpOptions = true,
        description = {"List the JVM's compiled methods and generated stubs with their code ranges; write its perf map.",
            "TIER is the compilation level (1-3 C1, 4 C2, 0 a native method's wrapper); OSR is @bci for an on-stack-replacement entry, - for the normal entry."})
final class JitCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--class", paramLabel = "GLOB", description = "Only methods of classes matching the glob (e.g. 'com.example.*').")
    String classGlob;

    @Option(names = "--method", paramLabel = "GLOB", description = "Only methods (and stubs) whose name matches the glob.")
    String methodGlob;

    @Option(names = "--json", description = "Print one JSON document instead of tables.")
    boolean json;

    @Option(names = "--perf-map", description = "Have the JVM write /tmp/perf-<pid>.map (its own /tmp and pid) for Linux perf; "
            + "prints its path and the counts, the table only with --class or --method.")
    boolean perfMap;

    @Option(names = "--follow", description = "With --perf-map: keep the map current (new code, unloads) until `detach`.")
    boolean follow;

    JitCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (follow && !perfMap) {
            throw new CliFailure(ExitCode.USAGE, "--follow keeps the perf map current: use it with --perf-map");
        }
        Pattern classes = classGlob == null ? null : Glob.toPattern(classGlob);
        Pattern methods = methodGlob == null ? null : Glob.toPattern(methodGlob);
        TargetProcess process = target.resolve();
        JitReport report;
        try (AgentClient client = context.connect(process)) {
            report = client.call(JitRequest.CODE_LIST.withPerfMap(perfMap).withFollow(follow), JitReport.class);
        }
        List<CompiledRow> compiled = JitView.compiled(report, c -> (classes == null || classes.matcher(c.className()).matches())
                && (methods == null || methods.matcher(c.method()).matches()));
        List<StubRow> stubs = JitView.stubs(report, s -> classes == null && (methods == null || methods.matcher(s.name()).matches()));
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pid", report.pid());
            doc.put("perfMap", report.perfMap());
            doc.put("following", report.following());
            doc.put("unloaded", report.unloaded());
            doc.put("dropped", report.dropped());
            doc.put("codeListError", report.codeListError());
            doc.put("compiled", compiled);
            doc.put("stubs", stubs);
            JsonOutput.print(context.out(), doc);
            return ExitCode.OK.code();
        }
        boolean filtered = classes != null || methods != null;
        if (!perfMap || filtered) { // --perf-map alone asks for the map, not for the JVM's whole code list
            JitView.print(context.out(), compiled, stubs);
            context.out().println();
        }
        if (!filtered) {
            context.out().printf("%d pieces of compiled code (a method can have several: tiers, OSR entries), %d stubs%n",
                    report.compiled().size(), report.stubs().size());
        } else {
            context.out().printf("%d of the JVM's %d pieces of compiled code and %d of its %d stubs match%n",
                    compiled.size(), report.compiled().size(), stubs.size(), report.stubs().size());
        }
        if (report.codeListError() != null) {
            context.out().println("tier and OSR unknown (?): " + report.codeListError());
        }
        if (report.perfMap() != null) {
            String where = report.pid() == process.pid() ? report.perfMap()
                    : report.perfMap() + " in the target's /tmp (pid " + report.pid() + " there; from here: /proc/" + process.pid() + "/root" + report.perfMap() + ")";
            context.out().println("perf map: " + where + (report.following() ? ", kept current until `jvmti-cli detach " + process.pid() + "`" : ""));
        }
        context.out().flush();
        return ExitCode.OK.code();
    }
}
