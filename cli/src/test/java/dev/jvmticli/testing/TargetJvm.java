package dev.jvmticli.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real target JVM started by a test: a main class from the test classes, run with a chosen JDK
 * and JVM options. The target prints {@code READY} when its scenario is in place, answers lines
 * sent to its standard input (see {@link TargetMain}), and dies with the test. Every target runs
 * with {@code -Xcheck:jni}, and {@link JniWarningCheck} fails the test class whose targets printed
 * a JNI warning: every line a target prints is kept with the moment it arrived.
 */
public final class TargetJvm implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private long jvmPid;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> stderr = Collections.synchronizedList(new ArrayList<>());
    private final List<OutputLine> output = Collections.synchronizedList(new ArrayList<>());
    private final String description;
    private final List<Thread> pumps;
    private volatile boolean profiled;
    private volatile long anotherAgentSinceNanos = Long.MAX_VALUE;

    /** A line the target printed, on "stdout" or "stderr", and when it arrived (System.nanoTime). */
    public record OutputLine(long arrivalNanos, String stream, String text) {
    }

    private TargetJvm(Process process, String description) {
        this.process = process;
        this.jvmPid = process.pid();
        this.description = description;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        pumps = List.of(
                pump(new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)), lines::add, "stdout"),
                pump(new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8)), stderr::add, "stderr"));
    }

    /** Starts mainClass with the JDK and JVM options given, and waits for its READY line. */
    public static TargetJvm start(Jdks.Jdk jdk, Class<?> mainClass, List<String> jvmOptions, String... args) {
        return launch(START_TIMEOUT, List.of(), null, testClasses().toString(), jdk, mainClass, jvmOptions, args);
    }

    /** Starts mainClass with a class path of its own (this JVM's, for a target that needs the test libraries). */
    public static TargetJvm start(Jdks.Jdk jdk, String classPath, Class<?> mainClass, List<String> jvmOptions, String... args) {
        return launch(START_TIMEOUT, List.of(), null, classPath, jdk, mainClass, jvmOptions, args);
    }

    /**
     * For a server that takes longer than a scenario to start: as {@link #start(Jdks.Jdk, String, Class, List, String...)}
     * with no wrapper, as {@link #startWrapped} with one.
     */
    public static TargetJvm startUntil(Duration startTimeout, List<String> wrapper, String classPath, Jdks.Jdk jdk, Class<?> mainClass,
                                       List<String> jvmOptions, String... args) {
        return launch(startTimeout, wrapper, wrapper.isEmpty() ? null : Path.of("/tmp"), classPath, jdk, mainClass, jvmOptions, args);
    }

    /**
     * Starts the JVM through a wrapper command (setpriv to run as another user, unshare for a
     * container) with the class path given. {@link #pid()} is the JVM's pid even when the
     * wrapper forks (unshare --fork); {@link #close()} kills the JVM and the wrapper. It starts
     * in /tmp, a directory every user can enter.
     */
    public static TargetJvm startWrapped(List<String> wrapper, Path classPath, Jdks.Jdk jdk, Class<?> mainClass,
                                         List<String> jvmOptions, String... args) {
        return launch(START_TIMEOUT, wrapper, Path.of("/tmp"), classPath.toString(), jdk, mainClass, jvmOptions, args);
    }

    private static TargetJvm launch(Duration startTimeout, List<String> wrapper, Path directory, String classPath, Jdks.Jdk jdk, Class<?> mainClass,
                                    List<String> jvmOptions, String... args) {
        List<String> program = new ArrayList<>(List.of("-cp", classPath, mainClass.getName()));
        program.addAll(List.of(args));
        return launch(wrapper, directory, jdk, jvmOptions, program, mainClass.getSimpleName(), startTimeout);
    }

    /**
     * Starts a program that is no test class, a server's own jar ({@code -jar PATH}), through a
     * wrapper as {@link #startWrapped} does (none: as {@link #start}), with the options every target
     * gets; it too prints {@code READY} when it serves, within startTimeout.
     */
    public static TargetJvm startProgram(List<String> wrapper, Jdks.Jdk jdk, List<String> jvmOptions, List<String> program,
                                         String name, Duration startTimeout) {
        return launch(wrapper, wrapper.isEmpty() ? null : Path.of("/tmp"), jdk, jvmOptions, program, name, startTimeout);
    }

    private static TargetJvm launch(List<String> wrapper, Path directory, Jdks.Jdk jdk, List<String> jvmOptions, List<String> program,
                                    String name, Duration startTimeout) {
        List<String> command = new ArrayList<>(wrapper);
        command.add(jdk.java().toString());
        command.add("-Xshare:auto");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Xcheck:jni");
        command.addAll(jvmOptions);
        command.addAll(program);
        try {
            TargetJvm target = new TargetJvm(new ProcessBuilder(command).directory(directory == null ? null : directory.toFile()).start(),
                    name + " on " + jdk + (jvmOptions.isEmpty() ? "" : " with " + String.join(" ", jvmOptions)));
            JniWarningCheck.watch(target);
            try {
                target.awaitLine("READY", startTimeout);
                target.jvmPid = findJvm(target.process.toHandle());
            } catch (RuntimeException | Error e) {
                // a target that never got ready is not left running (through a wrapper, the JVM is a descendant)
                target.process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
                target.close();
                throw e;
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The process itself if it is the JVM, else its descendant that is: the one running java, or
     * qemu-user running an emulated java (its executable is qemu's, its first argument java).
     */
    private static long findJvm(ProcessHandle process) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(process), process.descendants())
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false)
                        || p.info().arguments().map(a -> a.length > 0 && a[0].endsWith("/java")
                                && p.info().command().map(c -> c.contains("/qemu-")).orElse(false)).orElse(false))
                .findFirst()
                .map(ProcessHandle::pid)
                .orElseThrow(() -> new AssertionError("no JVM under process " + process.pid()));
    }

    public static TargetJvm start(Jdks.Jdk jdk, Class<?> mainClass, String... args) {
        return start(jdk, mainClass, List.of(), args);
    }

    /** The JVM's pid, as this test sees it. */
    public long pid() {
        return jvmPid;
    }

    public Process process() {
        return process;
    }

    /**
     * Sends one command line to the target and returns its one-line answer; what the JNI checker
     * printed meanwhile is skipped here (and reported by {@link JniWarningCheck}).
     */
    public String ask(String command) {
        try {
            stdin.write(command + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        while (true) {
            String line = awaitLine("", Duration.ofSeconds(30));
            if (!line.isEmpty() && !JniWarningCheck.isCheckerOutput(line)) {
                return line;
            }
        }
    }

    /** Waits for the next stdout line starting with prefix; earlier lines are skipped. */
    public String awaitLine(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("target " + pid() + " printed no line starting with '" + prefix + "' in "
                            + timeout.toSeconds() + " s; alive=" + process.isAlive() + ", stderr: " + stderr);
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** What the target has printed on stderr so far. */
    public List<String> stderr() {
        synchronized (stderr) {
            return List.copyOf(stderr);
        }
    }

    /**
     * This target is to be profiled (`profile` loads async-profiler, whose SIGSEGV and SIGBUS
     * handlers chain to the JVM's): the JNI checker's note that those handlers changed is expected.
     */
    public TargetJvm profiled() {
        profiled = true;
        return this;
    }

    boolean isProfiled() {
        return profiled;
    }

    /**
     * Another tool's agent (standalone async-profiler, loaded by jcmd) is about to be loaded into
     * this target: what the JNI checker prints from now on is that tool's, not jvmti-cli's agent's,
     * and {@link JniWarningCheck} reports only what came before. The test runs no command of ours
     * on the target after this.
     */
    public void anotherAgentLoaded() {
        anotherAgentSinceNanos = System.nanoTime();
    }

    /** The lines the target printed while only jvmti-cli's agent could be the JNI checker's cause. */
    List<OutputLine> beforeAnotherAgent(List<OutputLine> lines) {
        long since = anotherAgentSinceNanos;
        return lines.stream().filter(line -> line.arrivalNanos() - since < 0).toList();
    }

    /** What the target is, for a failure message: its main class, JDK and options. */
    public String description() {
        return description;
    }

    /** Every line the target has printed so far, on both streams, in the order they arrived. */
    public List<OutputLine> output() {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    /** Waits until the target has exited and all it printed has been read; false if not in time. */
    boolean awaitEnd(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        for (Thread pump : pumps) {
            pump.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (pump.isAlive()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        ProcessHandle.of(jvmPid).ifPresent(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Thread pump(BufferedReader reader, java.util.function.Consumer<String> sink, String what) {
        Thread thread = new Thread(() -> {
            try {
                String line;
                while ((line = reader.readLine()) != null) {
                    output.add(new OutputLine(System.nanoTime(), what, line));
                    sink.accept(line);
                }
            } catch (IOException ignored) {
                // the target died
            }
        }, "target " + what);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** The directory of the compiled test classes (targets, probes). */
    public static Path testClasses() {
        try {
            return Path.of(TargetJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
