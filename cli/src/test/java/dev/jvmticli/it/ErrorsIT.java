package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.targets.ThreadsTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Bad pids, non-JVMs, bad command lines, and clients that misbehave on the socket. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorsIT {
    private TargetJvm target;

    @BeforeAll
    void startTarget() {
        target = TargetJvm.start(Jdks.current(), ThreadsTarget.class);
        assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit());
    }

    @AfterAll
    void stopTarget() {
        target.close();
    }

    private static void assertOneLineError(Result result, int exit, String fragment) {
        assertEquals(exit, result.exit(), result.toString());
        assertEquals("", result.out(), result.toString());
        assertTrue(result.err().contains(fragment), result.toString());
        assertTrue(result.err().startsWith("jvmti-cli: "), result.toString());
        assertTrue(!result.err().contains("\tat "), "no stack trace without --verbose: " + result);
    }

    @Test
    void aDeadPidIsNoSuchProcess() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor(10, TimeUnit.SECONDS);
        Result result = CliRun.run("threads", Long.toString(gone.pid()));
        assertOneLineError(result, 3, "no process with pid " + gone.pid());
        assertEquals(1, result.err().lines().count());
    }

    @Test
    void aProcessThatIsNotAJvmIsLeftAlone() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "60").start();
        try {
            Result result = CliRun.run("threads", Long.toString(sleep.pid()));
            assertOneLineError(result, 4, "is not a JVM");
            Thread.sleep(200);
            assertTrue(sleep.isAlive(), "no SIGQUIT or anything else was sent to the non-JVM");
        } finally {
            sleep.destroyForcibly();
        }
    }

    /**
     * pid 1 is init (systemd, or a sandbox's own init, whose /proc/1/maps not even root may read):
     * not a JVM either way, and never "permission denied ... attach as the JVM's user".
     */
    @Test
    void initIsNotAJvmEvenWhenItsMapsCannotBeRead() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.readString(Path.of("/proc/1/comm")).startsWith("java"), "pid 1 is a JVM here");
        Result result = CliRun.run("threads", "1");
        assertOneLineError(result, 4, "process 1 is not a JVM");
    }

    @Test
    void badCommandLinesAreUsageErrors() {
        Result notANumber = CliRun.run("threads", "twelve");
        assertOneLineError(notANumber, 2, "'twelve' is not a process id");

        Result unknownOption = CliRun.run("threads", "1", "--frobnicate");
        assertEquals(2, unknownOption.exit());
        assertTrue(unknownOption.err().startsWith("jvmti-cli: Unknown option: '--frobnicate'"), unknownOption.err());
        assertTrue(unknownOption.err().contains("Try 'jvmti-cli threads --help'."), unknownOption.err());

        Result badDuration = CliRun.run("threads", "1", "--top", "3", "--interval", "soon");
        assertEquals(2, badDuration.exit());
        assertTrue(badDuration.err().contains("'soon' is not a duration"), badDuration.err());

        Result noCommand = CliRun.run();
        assertEquals(2, noCommand.exit());
    }

    /** Every bad command line: exit 2, one line saying what is wrong, then the usage hint. */
    @Test
    void everyBadCommandLineIsOneLineAndAHint() {
        assertUsage(CliRun.run("threads", "twelve"), "jvmti-cli: 'twelve' is not a process id", "threads");
        assertUsage(CliRun.run("threads", "0"), "jvmti-cli: '0' is not a process id", "threads");
        assertUsage(CliRun.run("threads", "12abc"), "jvmti-cli: '12abc' is not a process id", "threads");
        assertUsage(CliRun.run("threads", "99999999999999999999"), "jvmti-cli: '99999999999999999999' is not a process id", "threads");
        assertUsage(CliRun.run("detach", "-5"), "jvmti-cli: '-5' is not a process id", "detach");
        assertUsage(CliRun.run("threads"), "jvmti-cli: Missing required parameter: '<pid>'", "threads");
        assertUsage(CliRun.run("threads", "1", "2"), "jvmti-cli: Unmatched argument at index 2: '2'", "threads");
        assertUsage(CliRun.run("threads", "1", "--top", "0"), "jvmti-cli: --top takes a positive number", "threads");
        assertUsage(CliRun.run("threads", "1", "--top", "many"), "jvmti-cli: Invalid value for option '--top': 'many' is not an int", "threads");
        assertUsage(CliRun.run("threads", "1", "--sort", "size"), "jvmti-cli: Invalid value for option '--sort'", "threads");
        assertUsage(CliRun.run("--timeout", "forever", "threads", "1"), "jvmti-cli: Invalid value for option '--timeout'", "");
        assertUsage(CliRun.run("frobnicate"), "jvmti-cli: 'frobnicate' is not a command, a process id, or the name of a running JVM", "");
    }

    private static void assertUsage(Result result, String firstLine, String command) {
        List<String> lines = result.err().lines().toList();
        assertEquals(2, result.exit(), result.toString());
        assertEquals("", result.out(), result.toString());
        assertTrue(lines.get(0).startsWith(firstLine), result.toString());
        assertEquals("Try 'jvmti-cli" + (command.isEmpty() ? "" : " " + command) + " --help'.", lines.get(lines.size() - 1), result.toString());
        assertTrue(lines.size() <= 3, "short: " + result);
    }

    @Test
    void aDeadAttachSocketLeftByAnEarlierJvmWithTheSamePidIsCleared() throws Exception {
        try (TargetJvm fresh = TargetJvm.start(Jdks.current(), ThreadsTarget.class)) {
            java.nio.file.Path stale = java.nio.file.Path.of("/tmp/.java_pid" + fresh.pid());
            try (var channel = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                channel.bind(java.net.UnixDomainSocketAddress.of(stale));
            }
            java.nio.file.Files.setPosixFilePermissions(stale, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            Result result = CliRun.run("threads", Long.toString(fresh.pid()));
            assertEquals(0, result.exit(), result.toString());
        }
    }

    @Test
    void verboseShowsTheStackTrace() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor(10, TimeUnit.SECONDS);
        Result result = CliRun.run("threads", Long.toString(gone.pid()), "--verbose");
        assertEquals(3, result.exit());
        assertTrue(result.err().contains("\tat dev.jvmticli."), result.err());
    }

    @Test
    void garbageGetsAnErrorAnswerAndTheAgentKeepsAnsweringOthers() throws Exception {
        try (RawAgentSocket raw = new RawAgentSocket(target.pid())) {
            raw.send("garbage\n");
            JsonNode answer = Json.parse(raw.readLine());
            assertEquals(false, answer.path("ok").asBoolean());
            assertEquals("bad_request", answer.path("error").path("code").asText());

            raw.send("{\"v\":7,\"id\":7,\"cmd\":\"no-such-command\"}\n");
            JsonNode unknown = Json.parse(raw.readLine());
            assertEquals(7, unknown.path("id").asInt());
            assertEquals("unknown_command", unknown.path("error").path("code").asText());

            raw.send("{\"v\":99,\"id\":8,\"cmd\":\"threads\"}\n");
            assertEquals("unsupported_version", Json.parse(raw.readLine()).path("error").path("code").asText());

            // hello answers a client of any version, with the version the agent speaks
            raw.send("{\"v\":99,\"id\":10,\"cmd\":\"hello\"}\n");
            assertEquals(AgentClient.PROTOCOL_VERSION, Json.parse(raw.readLine()).path("result").path("protocol").asInt());

            raw.send("{\"v\":7,\"id\":9,\"cmd\":\"hello\"}\n");
            JsonNode hello = Json.parse(raw.readLine());
            assertEquals(true, hello.path("ok").asBoolean());
            assertEquals(target.pid(), hello.path("result").path("pid").asLong());
        }
        try (RawAgentSocket halfRequest = new RawAgentSocket(target.pid())) {
            halfRequest.send("{\"v\":7,\"id\":1,\"cmd\":\"thr");
        }
        try (RawAgentSocket tooLong = new RawAgentSocket(target.pid())) {
            tooLong.send("x".repeat(65_537)); // one byte over the agent's limit, no newline
            JsonNode answer = Json.parse(tooLong.readLine());
            assertEquals("bad_request", answer.path("error").path("code").asText());
            assertNull(tooLong.readLine(), "the agent hangs up on an oversized request");
        }
        Result after = CliRun.run("threads", Long.toString(target.pid()), "--json");
        assertEquals(0, after.exit(), after.toString());
        assertTrue(target.process().isAlive());
    }
}
