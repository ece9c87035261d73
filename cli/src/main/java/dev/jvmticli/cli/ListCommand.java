package dev.jvmticli.cli;

import dev.jvmticli.attach.JvmDiscovery;
import dev.jvmticli.attach.LocalJvm;
import dev.jvmticli.attach.StaleSockets;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.JvmTable;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List the local JVMs this user can attach to: pid, JDK, uptime, whether an agent is resident, main class or jar. Attaches to nothing.")
final class ListCommand implements Callable<Integer> {
    private final CliContext context;

    @Option(names = "--json", description = "Print one JSON document instead of a table.")
    boolean json;

    ListCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        StaleSockets.removeGone();
        List<LocalJvm> jvms = JvmDiscovery.scan();
        Instant now = Instant.now();
        List<JvmTable.Row> rows = jvms.stream().map(jvm -> new JvmTable.Row(jvm, jvm.uptime(now), jvm.agentResident())).toList();
        if (json) {
            JsonOutput.print(context.out(), Map.of("jvms", rows.stream().map(ListCommand::toJson).toList()));
        } else {
            JvmTable.print(context.out(), rows);
        }
        return ExitCode.OK.code();
    }

    private static Map<String, Object> toJson(JvmTable.Row row) {
        Map<String, Object> jvm = new LinkedHashMap<>();
        jvm.put("pid", row.jvm().pid());
        jvm.put("main", row.jvm().main());
        jvm.put("jdk", row.jvm().jdk());
        jvm.put("startedAt", row.jvm().started() == null ? null : row.jvm().started().toString());
        jvm.put("uptimeSeconds", row.uptime() == null ? null : row.uptime().toSeconds());
        jvm.put("agent", row.agent());
        return jvm;
    }
}
