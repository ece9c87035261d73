package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.demo.DemoTarget;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.targets.VirtualThreadsTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.DocPages;
import dev.jvmticli.testing.DocPages.Example;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command line README.md and docs/ show (a {@code $ jvmti-cli ...} line, see {@link DocPages})
 * runs, ends with the exit code its page documents, and prints the lines a reader relies on that
 * the page shows under it: its tables' header rows and its labelled sections ({@link DocPages#shape}),
 * unless the page marks that output as one the test's run cannot give ({@code <!-- output not checked: WHY -->}). The pid the page shows is replaced by the
 * pid of the target its code block names ({@code <!-- run against: NAME -->}, the demo JVM by
 * default), durations and intervals are cut to 500 ms, and {@code --out}, {@code --html} and an absolute {@code --dump} write
 * into a temporary directory; nothing else of the line changes. Lines that need a shell (input
 * redirection, PIPESTATUS) run in bash with {@code jvmti-cli} on PATH. A block marked
 * {@code <!-- not run: WHY -->}, or whose target this machine cannot start, is reported as
 * skipped with its reason.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DocsIT {
    private static final long LONGEST_WAIT_MILLIS = 500;
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m)");
    private static final int RUN_LIMIT_SECONDS = 60;

    private final Map<String, TargetJvm> targets = new LinkedHashMap<>();
    private final Map<String, String> unavailable = new HashMap<>();
    private final ExecutorService runner = Executors.newSingleThreadExecutor();

    @TempDir
    Path work;

    /**
     * The targets the docs' markers name. Their main classes all contain "Target", and at least two
     * run, so the docs' example of a name that matches several JVMs does.
     */
    @BeforeAll
    void startTargets() {
        Jdks.Jdk oldest = Jdks.stream().min(Comparator.comparingInt(Jdks.Jdk::feature)).orElseThrow();
        // the tour profiles it, and records its native memory (memory --native)
        targets.put("demo", TargetJvm.start(oldest, CliProcess.jar().toString(), DemoTarget.class, List.of()).profiled());
        if (oldest.feature() < 21) {
            targets.put("no-virtual-threads", targets.get("demo"));
        } else {
            unavailable.put("no-virtual-threads", "every installed JDK has virtual threads (21+)");
        }
        Optional<Jdks.Jdk> modern = Jdks.atLeast(21);
        if (modern.isPresent()) {
            targets.put("virtual-threads", TargetJvm.start(modern.get(), VirtualThreadsTarget.class));
            targets.put("refuses-dynamic-agents", TargetJvm.start(modern.get(), CounterTarget.class, List.of("-XX:-EnableDynamicAgentLoading")));
        } else {
            String none = "no JDK 21 or later is installed";
            unavailable.put("virtual-threads", none);
            unavailable.put("refuses-dynamic-agents", none);
            targets.put("second JVM", TargetJvm.start(oldest, CounterTarget.class));
        }
    }

    @AfterAll
    void stopTargets() throws IOException {
        runner.shutdownNow();
        for (TargetJvm target : targets.values()) {
            target.close();
            Files.deleteIfExists(Path.of("/tmp/perf-" + target.pid() + ".map")); // jit --perf-map
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCommandLineTheDocsShowRunsWithItsDocumentedExitCode() {
        List<Example> examples = DocPages.all(DocPages.checkout()).stream().flatMap(page -> DocPages.examples(page).stream()).toList();
        assertTrue(examples.size() > 40, "the docs show " + examples.size() + " command lines: is the reader broken?");
        return examples.stream().map(example -> DynamicTest.dynamicTest(example.toString(), () -> run(example)));
    }

    private void run(Example example) throws Exception {
        Assumptions.assumeTrue(example.notRun() == null, () -> "not run: " + example.notRun());
        TargetJvm target = targets.get(example.target());
        if (target == null) {
            assertTrue(unavailable.containsKey(example.target()), "no target is called '" + example.target() + "' (" + example + ")");
            Assumptions.abort("not run: " + unavailable.get(example.target()));
        }
        String pid = Long.toString(target.pid());
        Optional<String> shownPid = example.arguments().stream().filter(w -> w.chars().allMatch(Character::isDigit)).findFirst();
        Path directory = Files.createTempDirectory(work, "run");
        if (example.needsShell()) {
            String line = shownPid.map(shown -> example.shellLine().replaceAll("\\b" + shown + "\\b", pid)).orElse(example.shellLine());
            assertEquals(List.of(example.expectedExit()), inBash(directory, example.setUp(), line), example.toString());
            return;
        }
        List<String> arguments = new ArrayList<>();
        List<String> shown = example.arguments();
        for (int i = 0; i < shown.size(); i++) {
            String word = shown.get(i);
            String option = i > 0 ? shown.get(i - 1) : "";
            if (shownPid.isPresent() && word.equals(shownPid.get())) {
                arguments.add(pid);
            } else if (option.equals("--duration") || option.equals("--interval")) {
                arguments.add(shortened(word));
            } else if (option.equals("--out") || option.equals("--html") || option.equals("--dump") && word.startsWith("/")) {
                arguments.add(directory.resolve(Path.of(word).getFileName()).toString());
            } else {
                arguments.add(word);
            }
        }
        Future<CliRun.Result> run = runner.submit(() -> CliRun.run(arguments.toArray(String[]::new)));
        CliRun.Result result;
        try {
            result = run.get(RUN_LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            run.cancel(true);
            throw new AssertionError(example + ": still running after " + RUN_LIMIT_SECONDS + " s (as run: " + arguments + ")");
        }
        assertEquals(example.expectedExit(), result.exit(), example + "\nas run: " + arguments + "\n" + result);
        if (example.outputNotChecked() != null) {
            return;
        }
        List<String> printed = DocPages.shape(List.of((result.out() + result.err()).split("\n")));
        for (String relied : DocPages.shape(example.output())) {
            assertTrue(printed.contains(relied), example + ": the page shows '" + relied + "', the run printed none such"
                    + "\nas run: " + arguments + "\n" + result);
        }
    }

    /** A duration the page shows, no longer than 500 ms; a value that is not a duration (512k) as it is. */
    private static String shortened(String value) {
        Matcher duration = DURATION.matcher(value);
        if (!duration.matches()) {
            return value;
        }
        long millis = Long.parseLong(duration.group(1)) * switch (duration.group(2)) {
            case "ms" -> 1;
            case "s" -> 1000;
            default -> 60_000;
        };
        return millis > LONGEST_WAIT_MILLIS ? LONGEST_WAIT_MILLIS + "ms" : value;
    }

    /**
     * Runs the set-up lines and the line in bash, in directory, with a jvmti-cli there (and on PATH)
     * that runs the packaged CLI and notes its exit code; returns the exit codes of the CLI's runs.
     */
    private static List<Integer> inBash(Path directory, List<String> setUp, String line) throws Exception {
        Path codes = directory.resolve("exit-codes");
        String java = String.join(" ", CliProcess.command(List.of(), Jdks.current(), CliProcess.jar()).stream().map(w -> "'" + w + "'").toList());
        Path cli = directory.resolve("jvmti-cli");
        Files.writeString(cli, "#!/bin/bash\n" + java + " \"$@\"\ncode=$?\necho $code >> '" + codes + "'\nexit $code\n");
        Files.setPosixFilePermissions(cli, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> script = new ArrayList<>(setUp);
        script.add(line);
        ProcessBuilder bash = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", String.join("\n", script))
                .directory(directory.toFile()).redirectErrorStream(true).redirectOutput(directory.resolve("output").toFile());
        bash.environment().put("PATH", directory + ":" + System.getenv("PATH"));
        Process process = bash.start();
        if (!process.waitFor(RUN_LIMIT_SECONDS, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError(line + ": still running after " + RUN_LIMIT_SECONDS + " s");
        }
        assertTrue(Files.exists(codes), "the CLI never ran: " + line + "\n" + Files.readString(directory.resolve("output")));
        return Files.readAllLines(codes).stream().map(Integer::valueOf).toList();
    }
}
