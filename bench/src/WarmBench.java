import dev.jvmticli.analysis.Deadlocks;
import dev.jvmticli.analysis.OwnableSynchronizers;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentConnector;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.render.DeadlockText;
import dev.jvmticli.render.ThreadDumpText;
import dev.jvmticli.render.ThreadTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * "Warm": requests over ONE connection to the resident agent, as the shell makes them, with the
 * renderers the shell's commands use. Each request is timed from sending to the last line rendered
 * (into a writer that only counts characters), with the safepoints it caused read from the
 * target's log. Prints one line per timed request:
 * {@code warm <command> <wallNanos> <maxPauseNanos> <totalPauseNanos> <outputChars>}, then
 * {@code rss <kB>} (this JVM's peak resident set).
 *
 * Usage: java -cp jvmti-cli.jar:classes WarmBench PID SAFEPOINT_LOG COMMAND WARMUP TIMED
 * where COMMAND is threads, stacks, stacks-l or deadlocks.
 */
public final class WarmBench {
    private WarmBench() {
    }

    public static void main(String[] args) throws IOException {
        long pid = Long.parseLong(args[0]);
        SafepointLog log = new SafepointLog(Path.of(args[1]));
        String command = args[2];
        int warmup = Integer.parseInt(args[3]);
        int timed = Integer.parseInt(args[4]);
        try (AgentClient client = new AgentConnector(Duration.ofSeconds(60)).open(TargetProcess.of(pid))) {
            for (int i = 0; i < warmup + timed; i++) {
                CountingWriter sink = new CountingWriter();
                PrintWriter out = new PrintWriter(sink);
                long offset = log.size();
                long start = System.nanoTime();
                run(client, command, out);
                out.flush();
                long wall = System.nanoTime() - start;
                SafepointLog.Pauses pauses = log.since(offset);
                if (i >= warmup) {
                    System.out.println("warm " + command + " " + wall + " " + pauses.maxNanos + " " + pauses.totalNanos + " " + sink.chars);
                }
            }
        }
        System.out.println("rss " + peakRssKb());
    }

    private static void run(AgentClient client, String command, PrintWriter out) {
        switch (command) {
            case "threads" -> ThreadTable.print(out, client.threads().threads());
            case "stacks", "stacks-l" -> {
                StackDump dump = client.stacks(null, 8192, true, true);
                ThreadDumpText.print(out, dump, dump.threads(), client.jvm(),
                        command.equals("stacks-l") ? OwnableSynchronizers.of(client.ownedSynchronizers(), dump, client.cpuTimes(null), java.util.Set.of()) : null);
            }
            case "deadlocks" -> {
                // as DeadlocksCommand: a light pass for wait-for cycles; stacks only of their members
                List<List<ThreadStack>> cycles = Deadlocks.find(client.stacks(null, 1, false, false));
                StackDump full = cycles.isEmpty() ? new StackDump(0, "", true, List.of())
                        : client.stacks(cycles.stream().flatMap(List::stream).map(t -> t.thread().id()).toList(), 65536, true, true);
                DeadlockText.print(out, cycles, full);
            }
            default -> throw new IllegalArgumentException("unknown command " + command);
        }
    }

    private static long peakRssKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D+", ""));
            }
        }
        return -1;
    }

    private static final class CountingWriter extends Writer {
        long chars;

        @Override
        public void write(char[] buffer, int offset, int length) {
            chars += length;
        }

        @Override
        public void write(String text, int offset, int length) {
            chars += length;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
