import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The soak run (bench/soak.sh): SoakTarget under mixed load, every command in a loop, one-shot and
 * inside one shell session, alloc and contention sessions finished and abandoned (the CLI killed
 * mid-way), a detach every few cycles. A second SoakTarget, the control, runs the same load at the
 * same time and is never touched by the tool. Once a minute, between cycles (no session open, the
 * shell connected and idle), it records both targets' RSS, descriptors and threads, and the bytes
 * the agent holds on the C heap (hello's mallocBytes); the targets' short-lived worker threads are
 * not counted. The environment is passed on to both targets (MALLOC_ARENA_MAX, say), and so are
 * the JVM flags in SOAK_TARGET_FLAGS. Exit 0 when there was no failure and every figure of the
 * tool's target after the first minute stayed within the bounds below of that minute's.
 */
public final class Soak {
    /** Of the tool's target, not a difference: in a 30-minute run the control's own RSS moved by up
     * to 16.5 MB (one malloc arena), so the tool's share is its change less the control's. */
    static final long RSS_BOUND_KB = 32 * 1024;
    static final int THREAD_BOUND = 0;
    static final int FD_BOUND = 0;
    static final long AGENT_BYTES_BOUND = 256 * 1024;
    static final long COMMAND_TIMEOUT_SECONDS = 120;
    /** Before a sample: time for the agent to close the connection of the CLI that just ended. */
    static final long SETTLE_MILLIS = 2000;
    static final String SHELL_DONE = "agent-path";
    /** A heap committed and touched from the start, and the JVM's own thread pools at a fixed size,
     * so that what changes is what the load and the tool change. */
    static final List<String> TARGET_FLAGS = List.of("-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch",
            "-XX:-UseDynamicNumberOfCompilerThreads", "-XX:-UseDynamicNumberOfGCThreads");
    /** The target's short-lived workers, and the thread that starts them (a worker just started still
     * has its name until it sets its own), left out of the thread count. */
    static final List<String> UNCOUNTED = List.of("soak-worker", "soak-spawner");

    record Figures(long rssKb, int fds, int threads) {
    }

    record Sample(int minute, Figures target, Figures control, long agentBytes, int commands, int failures, String load) {
    }

    private final Path root;
    private final Path work;
    private final long pid;
    private final String pidText;
    private final long controlPid;
    private final List<String> failures = new ArrayList<>();
    private int commands;
    private Process shell;
    private Writer shellIn;
    private final BlockingQueue<String> shellOut = new LinkedBlockingQueue<>();

    Soak(Path root, Path work, long pid, long controlPid) {
        this.root = root;
        this.work = work;
        this.pid = pid;
        this.pidText = Long.toString(pid);
        this.controlPid = controlPid;
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        int minutes = Integer.parseInt(args[1]);
        Path classes = Path.of(args[2]);
        Path work = Files.createDirectories(root.resolve("bench/target/soak-" + ProcessHandle.current().pid()));
        Process target = startTarget(classes, work.resolve("target.err"));
        int code;
        try {
            Process control = startTarget(classes, work.resolve("control.err"));
            try {
                code = new Soak(root, work, target.pid(), control.pid()).run(minutes);
            } finally {
                control.destroyForcibly();
            }
        } finally {
            target.destroyForcibly();
        }
        System.exit(code);
    }

    private static Process startTarget(Path classes, Path err) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        command.addAll(TARGET_FLAGS);
        command.addAll(extraFlags());
        command.addAll(List.of("-cp", classes.toString(), "SoakTarget"));
        Process target = new ProcessBuilder(command).redirectError(err.toFile()).start();
        String ready = new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (ready == null || !ready.startsWith("READY")) {
            target.destroyForcibly();
            throw new IllegalStateException("a target did not start: " + Files.readString(err));
        }
        return target;
    }

    private static List<String> extraFlags() {
        String flags = System.getenv().getOrDefault("SOAK_TARGET_FLAGS", "").strip();
        return flags.isEmpty() ? List.of() : List.of(flags.split("\\s+"));
    }

    int run(int minutes) throws Exception {
        List<String> flags = new ArrayList<>(TARGET_FLAGS);
        flags.addAll(extraFlags());
        System.out.printf("soak: %d min on %s (pid %d, control pid %d, SoakTarget %s), MALLOC_ARENA_MAX=%s, %d cores, load %s%n", minutes,
                System.getProperty("java.vm.version"), pid, controlPid, String.join(" ", flags),
                System.getenv().getOrDefault("MALLOC_ARENA_MAX", "unset"), Runtime.getRuntime().availableProcessors(), load());
        System.out.println("MIN  RSS_MB  FDS  THREADS  AGENT_BYTES  COMMANDS  FAILURES  CONTROL: RSS_MB  FDS  THREADS  LOAD");
        long start = System.nanoTime();
        List<Sample> samples = new ArrayList<>();
        cycle(0); // attaches the agent, so that minute 0 already has it resident
        openShell();
        samples.add(sample(0));
        for (int cycle = 1; samples.size() <= minutes; cycle++) {
            cycle(cycle);
            if (System.nanoTime() - start >= TimeUnit.MINUTES.toNanos(samples.size())) {
                samples.add(sample(samples.size()));
            }
        }
        closeShell();
        return report(samples);
    }

    private void cycle(int cycle) throws Exception {
        if (cycle % 4 == 3) {
            oneShot("detach", pidText);
        }
        abandon("alloc", pidText, "--duration", "60s");
        abandon("contention", pidText, "--duration", "60s");
        List<String[]> each = List.of(
                new String[] {"threads"},
                new String[] {"threads", "--top", "3", "--interval", "200ms"},
                new String[] {"stacks"},
                new String[] {"stacks", "-l", "--thread", "soak-contender-*"},
                new String[] {"monitors"},
                new String[] {"deadlocks"},
                new String[] {"alloc", "--duration", "1s"},
                new String[] {"contention", "--duration", "1s"},
                new String[] {"jit", "--class", "SoakTarget*"});
        for (String[] command : each) {
            String[] args = new String[command.length + 1];
            args[0] = command[0];
            args[1] = pidText;
            System.arraycopy(command, 1, args, 2, command.length - 1);
            oneShot(args);
        }
        Path dump = work.resolve("dump");
        oneShot("dump", pidText, "--out", dump.toString());
        deleteTree(dump);
        oneShot("list");
        if (shell != null) {
            for (String[] command : each) {
                shellCommand(String.join(" ", command));
            }
        }
    }

    private List<String> cli(String... args) {
        List<String> command = new ArrayList<>();
        command.add(root.resolve("jvmti-cli").toString());
        command.addAll(List.of(args));
        return command;
    }

    private void oneShot(String... args) throws Exception {
        commands++;
        Path err = work.resolve("oneshot.err");
        Process p = new ProcessBuilder(cli(args)).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", args) + ": no exit in " + COMMAND_TIMEOUT_SECONDS + " s");
        } else if (p.exitValue() != 0) {
            fail(String.join(" ", args) + ": exit " + p.exitValue() + ": " + Files.readString(err).strip());
        }
    }

    /** Starts a session and kills the CLI in the middle of it; the next session must not find it busy. */
    private void abandon(String... args) throws Exception {
        commands++;
        Process p = new ProcessBuilder(cli(args)).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Thread.sleep(2000);
        if (!p.isAlive()) {
            fail(String.join(" ", args) + ": ended (exit " + p.exitValue() + ") before it was killed");
        }
        p.destroyForcibly().waitFor();
    }

    private void openShell() throws IOException {
        shell = new ProcessBuilder(cli("shell", pidText)).redirectError(ProcessBuilder.Redirect.PIPE).start();
        shellIn = new java.io.OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8);
        pump(shell.getInputStream(), shellOut::add);
        pump(shell.getErrorStream(), line -> fail("shell: " + line));
    }

    /** Runs one command in the shell and waits for it: agent-path after it prints the agent's path. */
    private void shellCommand(String command) throws Exception {
        commands++;
        shellIn.write(command + "\n" + SHELL_DONE + "\n");
        shellIn.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(COMMAND_TIMEOUT_SECONDS);
        while (true) {
            String line = shellOut.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                fail("shell: " + command + ": no answer in " + COMMAND_TIMEOUT_SECONDS + " s (shell alive: " + shell.isAlive() + ")");
                shell.destroyForcibly();
                shell = null;
                return;
            }
            if (line.startsWith("/") && line.contains("/libjvmticli") && line.endsWith(".so")) {
                return;
            }
        }
    }

    private void closeShell() throws Exception {
        if (shell == null) {
            return;
        }
        shellIn.close();
        if (!shell.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            fail("shell: no exit after end of input");
            shell.destroyForcibly();
        } else if (shell.exitValue() != 0) {
            fail("shell: exit " + shell.exitValue());
        }
    }

    private synchronized void fail(String what) {
        failures.add(what);
        System.out.println("FAILURE: " + what);
    }

    private Sample sample(int minute) throws IOException, InterruptedException {
        Thread.sleep(SETTLE_MILLIS);
        Figures target = figures(pid);
        Figures control = figures(controlPid);
        long agentBytes = agentBytes();
        Sample s;
        synchronized (this) {
            s = new Sample(minute, target, control, agentBytes, commands, failures.size(), load());
        }
        System.out.printf("%3d  %6.1f  %3d  %7d  %11d  %8d  %8d           %6.1f  %3d  %7d  %s%n", s.minute(), target.rssKb() / 1024.0,
                target.fds(), target.threads(), s.agentBytes(), s.commands(), s.failures(), control.rssKb() / 1024.0, control.fds(),
                control.threads(), s.load());
        System.out.flush();
        return s;
    }

    /** RSS, descriptors and threads but the short-lived workers of one target. */
    private static Figures figures(long pid) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        int fds;
        try (Stream<Path> open = Files.list(proc.resolve("fd"))) {
            fds = (int) open.count();
        }
        List<String> status = Files.readAllLines(proc.resolve("status"));
        int threads = 0;
        try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm"));
                    threads += UNCOUNTED.stream().anyMatch(name::startsWith) ? 0 : 1;
                } catch (IOException e) {
                    // ended meanwhile
                }
            }
        }
        return new Figures(field(status, "VmRSS:"), fds, threads);
    }

    /** hello's mallocBytes, asked over the agent's socket; -1 if it cannot be had. */
    private long agentBytes() {
        Path socket = Path.of("/proc", pidText, "root", "tmp", ".jvmti-cli-" + uid(), pidText + ".sock");
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap("{\"v\":2,\"id\":1,\"cmd\":\"hello\"}\n".getBytes(StandardCharsets.UTF_8)));
            ByteBuffer answer = ByteBuffer.allocate(1 << 16);
            while (answer.hasRemaining() && channel.read(answer) > 0) {
                if (answer.get(answer.position() - 1) == '\n') {
                    break;
                }
            }
            Matcher m = Pattern.compile("\"mallocBytes\":(\\d+)").matcher(new String(answer.array(), 0, answer.position(), StandardCharsets.UTF_8));
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (IOException e) {
            fail("hello: " + e);
            return -1;
        }
    }

    private int report(List<Sample> samples) {
        Sample base = samples.get(Math.min(1, samples.size() - 1));
        long rss = 0;
        int fds = 0;
        int threads = 0;
        long agent = 0;
        long controlRss = 0;
        for (Sample s : samples.subList(samples.indexOf(base), samples.size())) {
            rss = Math.max(rss, Math.abs(s.target().rssKb() - base.target().rssKb()));
            fds = Math.max(fds, Math.abs(s.target().fds() - base.target().fds()));
            threads = Math.max(threads, Math.abs(s.target().threads() - base.target().threads()));
            agent = Math.max(agent, Math.abs(s.agentBytes() - base.agentBytes()));
            controlRss = Math.max(controlRss, Math.abs(s.control().rssKb() - base.control().rssKb()));
        }
        boolean within = rss <= RSS_BOUND_KB && fds <= FD_BOUND && threads <= THREAD_BOUND && agent <= AGENT_BYTES_BOUND
                && base.agentBytes() >= 0;
        System.out.printf("after minute 1, largest change from minute 1: RSS %.1f MB (bound %d), descriptors %d (bound %d), threads %d (bound %d), "
                        + "agent bytes %d (bound %d)%n", rss / 1024.0, RSS_BOUND_KB / 1024, fds, FD_BOUND, threads, THREAD_BOUND, agent, AGENT_BYTES_BOUND);
        System.out.printf("the control without the tool, largest change from minute 1: RSS %.1f MB%n", controlRss / 1024.0);
        System.out.printf("%d commands, %d failures: %s%n", commands, failures.size(), within && failures.isEmpty() ? "PASS" : "FAIL");
        return within && failures.isEmpty() ? 0 : 1;
    }

    private static long field(List<String> status, String name) {
        return status.stream().filter(l -> l.startsWith(name)).findFirst()
                .map(l -> Long.parseLong(l.substring(name.length()).trim().split("\\s+")[0])).orElse(-1L);
    }

    private static String load() {
        try {
            String[] avg = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return avg[0] + " " + avg[1] + " " + avg[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static long uid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void pump(java.io.InputStream in, java.util.function.Consumer<String> sink) {
        Thread t = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        t.setDaemon(true);
        t.start();
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
