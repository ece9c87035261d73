package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.Hello;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.AgentArgumentNames;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command the agent lists in hello, present and future, gets arguments of every wrong kind
 * under every name the agent reads (from its sources, {@link AgentArgumentNames}) and names it
 * does not: each request is answered (a result or an error), the connection stays usable, and the
 * target keeps running. A new command is covered as soon as it is in dispatch.c's table, a new
 * argument as soon as a command reads it.
 */
class EveryCommandIT {
    /** Commands that end the session by design; they are sent last, once. */
    private static final Set<String> LIFECYCLE = Set.of("detach");
    /** Names no command reads, beside those the agent does. */
    private static final List<String> UNREAD = List.of("id2", "tid", "tids", "thread", "ids", "name", "names", "state", "states",
            "depth", "max", "limit", "intervalMillis", "millis", "seconds", "count", "sort", "filter", "kind", "events",
            "method", "path");
    /** The parser takes 24 fields; with v, id and cmd, 21 arguments a request. */
    private static final int ARGUMENTS_PER_REQUEST = 21;
    private static final List<String> VALUES = List.of("null", "true", "-1", "0", "-9223372036854775808", "9223372036854775807",
            "\"\"", "\"../../../../etc/passwd\"", "\"\\u0001\\ud83d\\ude80\"", "[]", "[-1,0,9223372036854775807]", "[\"\",\"x\"]");

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void everyCommandSurvivesArgumentsOfEveryWrongKind(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class)) {
            long pid = target.pid();
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
            List<String> commands;
            try (AgentClient client = AgentClient.connect(RawAgentSocket.socketPath(pid), Duration.ofSeconds(10), "target")) {
                Hello hello = client.hello();
                commands = hello.commands();
            }
            assertTrue(commands.containsAll(List.of("hello", "threads", "detach")), commands.toString());
            List<String> keys = new ArrayList<>(AgentArgumentNames.all());
            assertTrue(keys.containsAll(List.of("threads", "maxDepth", "interval", "library")), keys.toString());
            keys.addAll(UNREAD);
            long countBefore = Long.parseLong(target.ask("count"));
            int id = 1;
            try (RawAgentSocket raw = new RawAgentSocket(pid)) {
                for (String command : commands) {
                    if (LIFECYCLE.contains(command)) {
                        continue;
                    }
                    Set<String> sent = new HashSet<>();
                    for (int round = 0; round < VALUES.size() || !sent.containsAll(keys); round++) {
                        String value = VALUES.get(round % VALUES.size());
                        StringBuilder request = new StringBuilder("{\"v\":7,\"id\":" + id + ",\"cmd\":\"" + command + "\"");
                        for (int k = 0; k < Math.min(ARGUMENTS_PER_REQUEST, keys.size()); k++) {
                            String key = keys.get((round * ARGUMENTS_PER_REQUEST + k) % keys.size());
                            sent.add(key);
                            request.append(",\"").append(key).append("\":").append(value);
                        }
                        raw.send(request.append("}\n").toString());
                        JsonNode answer = Json.parse(raw.readLine());
                        assertEquals(id, answer.path("id").asInt(), command + " " + value + ": " + answer);
                        assertTrue(answer.path("ok").asBoolean() || answer.path("error").path("code").isTextual(), answer.toString());
                        id++;
                    }
                }
                raw.send("{\"v\":7,\"id\":" + id + ",\"cmd\":\"hello\"}\n");
                assertTrue(Json.parse(raw.readLine()).path("ok").asBoolean());
            }
            assertTrue(Long.parseLong(target.ask("count")) > countBefore, "the target kept running");
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
        }
    }
}
