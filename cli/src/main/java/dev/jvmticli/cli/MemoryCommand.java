package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.MemoryReport;
import dev.jvmticli.client.VmInfo;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.MemoryView;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "memory", mixinStandardHelpOptions = true,
        description = "Where the process's memory is: heap and each pool, metaspace, code cache, direct and mapped buffers, "
            + "thread stacks, GC counts and times (the JVM's MXBeans); resident memory and its split (the "
            + "kernel's); the native memory tracking summary.")
final class MemoryCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--json", description = "Print one JSON document instead of tables.")
    boolean json;

    MemoryCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        TargetProcess process = target.resolve();
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

    static MemoryReport memory(AgentClient client) {
        return client.call("memory", Map.of(), MemoryReport.class);
    }
}
