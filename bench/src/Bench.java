import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * jvmti-cli side by side with jstack and jcmd, on targets this driver starts itself, each with
 * -Xlog:safepoint so that the pauses every tool causes are read from the target's own log. Tools
 * run alternately (A B A B ...) for several rounds; every figure is the median over the rounds
 * (over WARM_SAMPLES_PER_ROUND requests a round for warm ones).
 * Prints Markdown tables; raw samples go to bench/target/samples.csv.
 *
 * Usage (after `mvn package`): bench/run.sh [--rounds N] [--scale 500,2000,8000] [--skip-main]
 */
public final class Bench {
    /** Warm requests are cheap and noisy: each round times this many over the one connection. */
    private static final int WARM_SAMPLES_PER_ROUND = 5;

    private final Path root;
    private final Path out;
    private final Path javaHome = Path.of(System.getProperty("java.home"));
    private final boolean haveTime = Files.isExecutable(Path.of("/usr/bin/time"));
    private final List<String> csv = new ArrayList<>();
    private int rounds = 5;

    private Bench(Path root) {
        this.root = root;
        this.out = root.resolve("bench/target");
    }

    public static void main(String[] args) throws Exception {
        Bench bench = new Bench(Path.of(args[0]).toAbsolutePath());
        List<Integer> scale = List.of();
        boolean main = true;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> bench.rounds = Integer.parseInt(args[++i]);
                case "--scale" -> scale = java.util.Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--skip-main" -> main = false;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        bench.csv.add("target,tool,mode,round,wall_ms,max_pause_ms,total_pause_ms,safepoints,rss_kb,output_bytes");
        System.out.println("# jvmti-cli benchmark: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", " + Runtime.getRuntime().availableProcessors() + " CPUs, " + bench.rounds + " rounds, medians; load average at start "
                + Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        if (main) {
            bench.compare("small", 20, 20);
            bench.compare("large", 2000, 100);
        }
        if (!scale.isEmpty()) {
            bench.scale(scale);
        }
        Files.write(bench.out.resolve("samples.csv"), bench.csv);
        System.out.println();
        System.out.println("Raw samples: bench/target/samples.csv");
    }

    // ---------------------------------------------------------------- the comparison

    private record Tool(String name, String mode, List<String> command, boolean detachFirst) {
    }

    private void compare(String label, int threads, int depth) throws Exception {
        try (Target target = Target.start(this, label, threads, depth)) {
            String pid = Long.toString(target.pid());
            List<Tool> tools = new ArrayList<>();
            tools.add(new Tool("jstack", "", jdkTool("jstack", pid), false));
            tools.add(new Tool("jvmti-cli stacks", "cold", cli("stacks", pid), false));
            tools.add(new Tool("jstack -l", "", jdkTool("jstack", "-l", pid), false));
            tools.add(new Tool("jvmti-cli stacks -l", "cold", cli("stacks", "-l", pid), false));
            tools.add(new Tool("jcmd Thread.print", "", jdkTool("jcmd", pid, "Thread.print"), false));
            tools.add(new Tool("jvmti-cli threads", "cold", cli("threads", pid), false));
            tools.add(new Tool("jvmti-cli deadlocks", "cold", cli("deadlocks", pid), false));
            for (String command : List.of("threads", "stacks", "deadlocks")) {
                tools.add(new Tool("jvmti-cli " + command, "first-ever", cli(command, pid), true));
            }
            run(target, cli("threads", pid)); // the agent is resident before the first "cold" run
            Map<String, List<Sample>> samples = new LinkedHashMap<>();
            for (int round = 1; round <= rounds; round++) {
                for (Tool tool : tools) {
                    if (tool.detachFirst()) {
                        run(target, cli("detach", pid));
                    }
                    Sample s = run(target, tool.command());
                    record(label, tool.name(), tool.mode(), round, s);
                    samples.computeIfAbsent(key(tool.name(), tool.mode()), k -> new ArrayList<>()).add(s);
                }
            }
            for (String command : List.of("threads", "stacks", "stacks-l", "deadlocks")) {
                List<Sample> warm = warm(target, command, WARM_SAMPLES_PER_ROUND * rounds);
                String name = "jvmti-cli " + command.replace("-l", " -l");
                warm.forEach(s -> record(label, name, "warm", 0, s));
                samples.put(key(name, "warm"), warm);
            }
            print(label + " target: " + threads + " threads requested, " + depth + " frames deep (pid " + pid + ")", samples);
        }
    }

    private static String key(String name, String mode) {
        return mode.isEmpty() ? name : name + " (" + mode + ")";
    }

    private void print(String title, Map<String, List<Sample>> samples) {
        System.out.println();
        System.out.println("## " + title);
        System.out.println();
        System.out.println("| tool | wall ms | vs jstack | longest pause ms | vs jstack | total pause ms | safepoints | peak RSS MB | output KB |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        double jstackWall = median(samples.get("jstack"), s -> s.wallNanos);
        double jstackPause = median(samples.get("jstack"), s -> s.maxPauseNanos);
        for (Map.Entry<String, List<Sample>> e : samples.entrySet()) {
            List<Sample> list = e.getValue();
            double wall = median(list, s -> s.wallNanos);
            double pause = median(list, s -> s.maxPauseNanos);
            System.out.printf(Locale.ROOT, "| %s | %.0f | %s | %.1f | %s | %.1f | %.0f | %.0f | %.0f |%n",
                    e.getKey(), wall / 1e6, ratio(wall, jstackWall), pause / 1e6, ratio(pause, jstackPause),
                    median(list, s -> s.totalPauseNanos) / 1e6, median(list, s -> s.safepoints),
                    median(list, s -> s.rssKb) / 1024, median(list, s -> s.outputBytes) / 1024);
        }
    }

    private static String ratio(double value, double reference) {
        return reference <= 0 ? "-" : String.format(Locale.ROOT, "%.2f", value / reference);
    }

    // ---------------------------------------------------------------- scale

    private void scale(List<Integer> sizes) throws Exception {
        System.out.println();
        System.out.println("## Scale: jstack and jvmti-cli stacks (agent resident; warm = one connection), 100 frames deep");
        System.out.println();
        System.out.println("| threads | jstack wall ms | jstack longest pause ms | jstack total pause ms | stacks cold wall ms | stacks warm ms | stacks longest pause ms | stacks total pause ms | output MB (jstack / stacks) |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (int size : sizes) {
            try (Target target = Target.start(this, "scale-" + size, size, 100)) {
                String pid = Long.toString(target.pid());
                run(target, cli("threads", pid));
                List<Sample> jstack = new ArrayList<>();
                List<Sample> cli = new ArrayList<>();
                for (int round = 1; round <= rounds; round++) {
                    Sample a = run(target, jdkTool("jstack", pid));
                    Sample b = run(target, cli("stacks", pid));
                    record("scale-" + size, "jstack", "", round, a);
                    record("scale-" + size, "jvmti-cli stacks", "cold", round, b);
                    jstack.add(a);
                    cli.add(b);
                }
                List<Sample> warm = warm(target, "stacks", WARM_SAMPLES_PER_ROUND * rounds);
                warm.forEach(s -> record("scale-" + size, "jvmti-cli stacks", "warm", 0, s));
                System.out.printf(Locale.ROOT, "| %d | %.0f | %.1f | %.1f | %.0f | %.0f | %.1f | %.1f | %.1f / %.1f |%n", size,
                        median(jstack, s -> s.wallNanos) / 1e6, median(jstack, s -> s.maxPauseNanos) / 1e6, median(jstack, s -> s.totalPauseNanos) / 1e6,
                        median(cli, s -> s.wallNanos) / 1e6, median(warm, s -> s.wallNanos) / 1e6,
                        median(cli, s -> s.maxPauseNanos) / 1e6, median(cli, s -> s.totalPauseNanos) / 1e6,
                        median(jstack, s -> s.outputBytes) / 1e6, median(cli, s -> s.outputBytes) / 1e6);
            }
        }
    }

    // ---------------------------------------------------------------- running tools

    private static final class Sample {
        long wallNanos;
        long maxPauseNanos;
        long totalPauseNanos;
        long safepoints;
        long rssKb = -1;
        long outputBytes;
    }

    private List<String> jdkTool(String tool, String... args) {
        List<String> command = new ArrayList<>(List.of(javaHome.resolve("bin").resolve(tool).toString()));
        command.addAll(List.of(args));
        return command;
    }

    private List<String> cli(String... args) {
        List<String> command = new ArrayList<>(List.of(root.resolve("jvmti-cli").toString()));
        command.addAll(List.of(args));
        return command;
    }

    /** Runs one tool to its end: wall time, the target's safepoints meanwhile, peak RSS, output size. */
    private Sample run(Target target, List<String> command) throws Exception {
        Path rss = out.resolve("rss.txt");
        List<String> full = new ArrayList<>();
        if (haveTime) {
            full.addAll(List.of("/usr/bin/time", "-f", "%M", "-o", rss.toString()));
        }
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("JAVA_HOME", javaHome.toString());
        long offset = target.log.size();
        long start = System.nanoTime();
        Process process = builder.start();
        process.getOutputStream().close();
        long bytes = drain(process.getInputStream());
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("timed out: " + command);
        }
        Sample s = new Sample();
        s.wallNanos = System.nanoTime() - start;
        s.outputBytes = bytes;
        SafepointLog.Pauses pauses = target.log.since(offset);
        s.maxPauseNanos = pauses.maxNanos;
        s.totalPauseNanos = pauses.totalNanos;
        s.safepoints = pauses.count;
        if (haveTime) {
            s.rssKb = Long.parseLong(Files.readString(rss).strip().lines().reduce((a, b) -> b).orElse("-1").strip());
        }
        int exit = process.exitValue();
        if (exit != 0 && !(command.contains("deadlocks") && exit == 10)) {
            throw new IllegalStateException("exit " + exit + ": " + command);
        }
        return s;
    }

    private static long drain(InputStream in) throws IOException {
        byte[] buffer = new byte[1 << 16];
        long total = 0;
        for (int n; (n = in.read(buffer)) >= 0; ) {
            total += n;
        }
        return total;
    }

    /** Requests over one connection, timed by WarmBench inside its own JVM. */
    private List<Sample> warm(Target target, String command, int timed) throws Exception {
        List<String> full = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k",
                "-cp", root.resolve("cli/target/jvmti-cli.jar") + ":" + out.resolve("classes"),
                "WarmBench", Long.toString(target.pid()), target.logFile.toString(), command, "3", Integer.toString(timed)));
        Process process = new ProcessBuilder(full).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<Sample> samples = new ArrayList<>();
        long rss = -1;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                String[] f = line.split(" ");
                if (f[0].equals("warm")) {
                    Sample s = new Sample();
                    s.wallNanos = Long.parseLong(f[2]);
                    s.maxPauseNanos = Long.parseLong(f[3]);
                    s.totalPauseNanos = Long.parseLong(f[4]);
                    s.outputBytes = Long.parseLong(f[5]);
                    s.safepoints = -1;
                    samples.add(s);
                } else if (f[0].equals("rss")) {
                    rss = Long.parseLong(f[1]);
                }
            }
        }
        if (process.waitFor() != 0 || samples.isEmpty()) {
            throw new IllegalStateException("WarmBench failed for " + command);
        }
        for (Sample s : samples) {
            s.rssKb = rss;
        }
        return samples;
    }

    private void record(String target, String tool, String mode, int round, Sample s) {
        csv.add(String.join(",", target, tool, mode, Integer.toString(round), ms(s.wallNanos), ms(s.maxPauseNanos),
                ms(s.totalPauseNanos), Long.toString(s.safepoints), Long.toString(s.rssKb), Long.toString(s.outputBytes)));
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    private static double median(List<Sample> samples, ToLongFunction<Sample> field) {
        long[] values = samples.stream().mapToLong(field).sorted().toArray();
        if (values.length == 0) {
            return -1;
        }
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
    }

    // ---------------------------------------------------------------- targets

    private static final class Target implements AutoCloseable {
        final Process process;
        final Path logFile;
        final SafepointLog log;

        private Target(Process process, Path logFile) {
            this.process = process;
            this.logFile = logFile;
            this.log = new SafepointLog(logFile);
        }

        static Target start(Bench bench, String label, int threads, int depth) throws IOException {
            Path logFile = bench.out.resolve("safepoint-" + label + ".log");
            Files.deleteIfExists(logFile);
            Process process = new ProcessBuilder(bench.javaHome.resolve("bin/java").toString(),
                    "-Xlog:safepoint:file=" + logFile, "-Xss256k", "-cp", bench.out.resolve("classes").toString(),
                    "BenchTarget", Integer.toString(threads), Integer.toString(depth))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line = lines.readLine();
            if (!"READY".equals(line)) {
                process.destroyForcibly();
                throw new IllegalStateException("target " + label + " did not start: " + line);
            }
            return new Target(process, logFile);
        }

        long pid() {
            return process.pid();
        }

        @Override
        public void close() {
            try {
                OutputStream stdin = process.getOutputStream();
                stdin.close(); // the target exits when its standard input closes
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
