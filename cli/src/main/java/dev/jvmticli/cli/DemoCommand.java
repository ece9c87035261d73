package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.demo.DemoTarget;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.ThreadTable;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(name = "demo", mixinStandardHelpOptions = true, description = "Start a small sample JVM in known states, show its threads, and stop it.")
final class DemoCommand implements Callable<Integer> {
    private final CliContext context;

    DemoCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException {
        Process demo = startDemo();
        try {
            long pid = awaitReady(demo);
            context.out().println("Started a demo JVM (pid " + pid + "): a busy thread, a sleeper, a waiter, blocked and parked threads, and a deadlock.");
            context.out().println();
            context.out().println("$ jvmti-cli threads " + pid);
            try (AgentClient client = context.connect(TargetProcess.of(pid))) {
                List<ThreadEntry> threads = client.threads().threads().stream()
                        .sorted(Comparator.comparingLong(ThreadEntry::id)).toList();
                ThreadTable.print(context.out(), threads);
            }
            context.out().println();
            context.out().println("Stopped the demo JVM. Try it on your own: jvmti-cli threads <pid> (find pids with jps).");
        } finally {
            demo.destroyForcibly();
        }
        return ExitCode.OK.code();
    }

    private static Process startDemo() throws IOException {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String classpath;
        try {
            classpath = Path.of(DemoTarget.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        return new ProcessBuilder(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classpath, DemoTarget.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    private static long awaitReady(Process demo) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
        String line = lines.readLine();
        if (line == null || !line.startsWith("READY ")) {
            throw new CliFailure(ExitCode.FAILURE, "the demo JVM did not start");
        }
        return Long.parseLong(line.substring("READY ".length()).trim());
    }
}
