package dev.jvmticli.cli;

import dev.jvmticli.demo.DemoTarget;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "demo", mixinStandardHelpOptions = true, description = "Start a small sample JVM in known states, show its threads, and stop it.")
final class DemoCommand implements Callable<Integer> {
    /** What the demo runs on its JVM. */
    private static final List<String> DEMO_COMMANDS = List.of("threads", "deadlocks");

    /**
     * The bare commands a training run ({@code demo --training=...}) runs, for an archive of the
     * classes they load that the launcher makes: a class the archive lacks costs a cold start a read
     * and a verification, a lambda its class spun at run time.
     */
    @Option(names = "--training", hidden = true, split = ",", paramLabel = "COMMAND",
            description = "Run these bare commands (threads, stacks, monitors, deadlocks), for an archive of the classes they load.")
    List<String> training = List.of();

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
            for (String command : training.isEmpty() ? DEMO_COMMANDS : training) {
                context.out().println("$ jvmti-cli " + command + " " + pid);
                Callable<Integer> bare = BareCommand.of(context, new String[] {command, Long.toString(pid)});
                if (bare == null) {
                    throw new CliFailure(ExitCode.USAGE, "--training: " + command + " is not a command that runs bare");
                }
                int exit = BareCommand.run(context, command, bare);
                if (exit != ExitCode.OK.code() && exit != ExitCode.DEADLOCK_FOUND.code()) {
                    return exit;
                }
                context.out().println();
            }
            context.out().println("Stopped the demo JVM. Try it on your own: jvmti-cli threads <pid>, stacks <pid> (find pids with jvmti-cli list).");
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
