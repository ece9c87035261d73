import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentConnector;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.render.TextOutput;
import dev.jvmticli.render.ThreadDumpText;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Warm {@code stacks} end to end: the real shell ({@code jvmti-cli shell PID}, commands on its
 * standard input, its output read from a pipe) against jstack, alternately, round after round, on
 * targets of several shapes; every figure is a median. Where the time goes is measured in this
 * JVM, run with the launcher's flags: the agent's answer over a raw socket (request to last byte),
 * and the CLI's CPU to read and parse it and to render it into bytes. "shell CPU" is the shell
 * process's own CPU per command (from /proc), all of it: reading, parsing, rendering, writing.
 *
 * Usage: java -cp jvmti-cli.jar:classes ShellBench ROOT ROUNDS SHAPE... where SHAPE is
 * label:threads:depth:kind (kind as BenchTarget takes it), e.g. mix:2000:100:mix
 */
public final class ShellBench {
    static final int WARMUP = 5;

    private final Path root;
    /** The launcher of the shell measured: this checkout's, or another build's (-Dcli=PATH) to compare with. */
    private final Path cli;
    private final Path javaHome = Path.of(System.getProperty("java.home"));
    private final ThreadMXBean cpu = ManagementFactory.getThreadMXBean();

    private ShellBench(Path root) {
        this.root = root;
        this.cli = Path.of(System.getProperty("cli", root.resolve("jvmti-cli").toString()));
    }

    public static void main(String[] args) throws Exception {
        ShellBench bench = new ShellBench(Path.of(args[0]));
        int rounds = Integer.parseInt(args[1]);
        System.out.println("# Warm stacks in the shell vs jstack: " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version") + ", " + Runtime.getRuntime().availableProcessors() + " CPUs, "
                + rounds + " rounds, medians; load average at start " + Files.readString(Path.of("/proc/loadavg")).split(" ")[0]
                + "; shell: " + bench.cli);
        System.out.println();
        System.out.println("| target | threads x frames | output MB | agent answer ms | parse CPU ms | render CPU ms | shell CPU ms | shell stacks ms | jstack ms | jstack / shell |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (int i = 2; i < args.length; i++) {
            String[] shape = args[i].split(":");
            bench.run(shape[0], Integer.parseInt(shape[1]), Integer.parseInt(shape[2]), shape[3], rounds);
        }
    }

    private void run(String label, int threads, int depth, String kind, int rounds) throws Exception {
        try (ShapeTarget target = ShapeTarget.start(root, javaHome, threads, depth, kind);
             BenchShell shell = new BenchShell(cli, target.pid())) {
            long pid = target.pid();
            shell.stacks(); // the shell loads its own build's agent, which this bench's connection then finds resident
            try (AgentClient client = new AgentConnector(Duration.ofSeconds(120)).open(TargetProcess.of(pid))) {
                for (int i = 0; i < WARMUP; i++) {
                    shell.stacks();
                    stages(client, pid);
                }
                List<long[]> samples = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    long jstack = jstack(pid);
                    long[] stages = stages(client, pid);
                    long[] inShell = shell.stacks();
                    samples.add(new long[] {stages[0], stages[1], stages[2], inShell[1], inShell[0], jstack, inShell[2]});
                }
                double shellWall = median(samples, 4);
                double jstackWall = median(samples, 5);
                System.out.printf(Locale.ROOT, "| %s | %d x %d | %.1f | %.0f | %.1f | %.1f | %.0f | %.0f | %.0f | %.1f |%n", label, threads, depth,
                        median(samples, 6) / 1e6, median(samples, 0) / 1e6, median(samples, 1) / 1e6, median(samples, 2) / 1e6,
                        median(samples, 3) / 1e6, shellWall / 1e6, jstackWall / 1e6, jstackWall / shellWall);
            }
        }
    }

    /** Agent answer (wall), parse and render (this thread's CPU), in nanoseconds. */
    private long[] stages(AgentClient client, long pid) throws IOException {
        long agent = rawAnswerNanos(pid);
        long start = cpu.getCurrentThreadCpuTime();
        StackDump dump = client.stacks(null, 8192, true, true);
        long parsed = cpu.getCurrentThreadCpuTime();
        TextOutput out = TextOutput.of(OutputStream.nullOutputStream(), 1 << 20);
        ThreadDumpText.print(out, dump, dump.threads(), client.jvm(), null);
        long rendered = cpu.getCurrentThreadCpuTime();
        return new long[] {agent, parsed - start, rendered - parsed};
    }

    /** A stacks request as the shell makes it, over a connection of its own, to the answer's last byte. */
    private static long rawAnswerNanos(long pid) throws IOException {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(TargetProcess.of(pid).socketPath()));
            ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
            long start = System.nanoTime();
            channel.write(ByteBuffer.wrap("{\"v\":7,\"id\":1,\"cmd\":\"stacks\",\"maxDepth\":8192,\"frames\":true,\"owned\":true}\n"
                    .getBytes(StandardCharsets.UTF_8)));
            while (true) {
                buffer.clear();
                int n = channel.read(buffer);
                if (n < 0) {
                    throw new IOException("the agent closed the connection");
                }
                if (n > 0 && buffer.get(n - 1) == '\n') {
                    return System.nanoTime() - start;
                }
            }
        }
    }

    private long jstack(long pid) throws Exception {
        long start = System.nanoTime();
        Process p = new ProcessBuilder(javaHome.resolve("bin/jstack").toString(), Long.toString(pid))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("jstack failed");
        }
        return System.nanoTime() - start;
    }

    static double median(List<long[]> samples, int column) {
        long[] values = samples.stream().mapToLong(s -> s[column]).sorted().toArray();
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
    }
}
