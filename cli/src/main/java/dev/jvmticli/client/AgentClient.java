package dev.jvmticli.client;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** One connection to a resident agent; requests go one at a time. */
public final class AgentClient implements Closeable {
    public static final int PROTOCOL_VERSION = 1;

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final ChannelStreams streams;
    private final JsonParser parser;
    private final String targetName;
    private long nextId = 1;
    private Hello hello;

    private AgentClient(ChannelStreams streams, String targetName) throws IOException {
        this.streams = streams;
        this.targetName = targetName;
        // a Reader, not the stream: Jackson would read ahead at creation to sniff the encoding
        this.parser = MAPPER.getFactory().createParser(new InputStreamReader(streams.input, StandardCharsets.UTF_8));
    }

    /** Connects to the agent socket at path; throws IOException when nothing listens there. */
    public static AgentClient connect(Path socket, Duration timeout, String targetName) throws IOException {
        var channel = java.nio.channels.SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return new AgentClient(new ChannelStreams(channel, timeout), targetName);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public Hello hello() {
        hello = call("hello", Map.of(), Hello.class);
        return hello;
    }

    /** The target JVM as the last hello described it (one is made on connecting). */
    public Hello.Jvm jvm() {
        return (hello == null ? hello() : hello).jvm();
    }

    public ThreadList threads() {
        return call("threads", Map.of(), ThreadList.class);
    }

    /**
     * Stacks and lock facts.
     *
     * @param threadIds the threads to include, or null for all
     * @param maxDepth  frames per thread at most
     * @param frames    whether to include frames at all
     * @param owned     whether to collect the monitors each thread owns
     */
    public StackDump stacks(java.util.Collection<Long> threadIds, int maxDepth, boolean frames, boolean owned) {
        Map<String, Object> arguments = new java.util.LinkedHashMap<>();
        if (threadIds != null) {
            arguments.put("threads", threadIds);
        }
        arguments.put("maxDepth", maxDepth);
        arguments.put("frames", frames);
        arguments.put("owned", owned);
        return call("stacks", arguments, StackDump.class);
    }

    public VmInfo vm() {
        return call("vm", Map.of(), VmInfo.class);
    }

    /**
     * The target's virtual threads.
     *
     * @param threadIds   the threads to include, or null for all
     * @param frames      with their stacks (maxDepth frames at most)
     * @param locks       with monitors owned and waited for, and park blockers
     * @param summary     only the counts, no threads
     * @param mountedOnly only the mounted ones (to find carriers)
     * @throws CliFailure with {@link ExitCode#NO_VIRTUAL_THREADS} when the target has none (JDK before 21)
     */
    public VirtualDump vthreads(java.util.Collection<Long> threadIds, boolean frames, int maxDepth, boolean locks,
                                boolean summary, boolean mountedOnly) {
        Map<String, Object> arguments = new java.util.LinkedHashMap<>();
        if (threadIds != null) {
            arguments.put("threads", threadIds);
        }
        arguments.put("frames", frames);
        arguments.put("maxDepth", maxDepth);
        arguments.put("locks", locks);
        arguments.put("summary", summary);
        arguments.put("mountedOnly", mountedOnly);
        try {
            return call("vthreads", arguments, VirtualDump.class);
        } catch (AgentError e) {
            if (e.code().equals("no_virtual_threads")) {
                throw new CliFailure(ExitCode.NO_VIRTUAL_THREADS, targetName + ": " + e.agentMessage());
            }
            throw e;
        }
    }

    /** As {@link #vthreads}, but empty (not a failure) when the target has no virtual threads. */
    public java.util.Optional<VirtualDump> vthreadsIfAny(java.util.Collection<Long> threadIds, boolean frames, int maxDepth,
                                                         boolean locks, boolean summary, boolean mountedOnly) {
        try {
            return java.util.Optional.of(vthreads(threadIds, frames, maxDepth, locks, summary, mountedOnly));
        } catch (CliFailure e) {
            if (e.exitCode() == ExitCode.NO_VIRTUAL_THREADS) {
                return java.util.Optional.empty();
            }
            throw e;
        }
    }

    /** What the platform threads with these ids are blocked entering or wait on, from a JDK 25+ thread snapshot. */
    public Blockers blockers(java.util.Collection<Long> threadIds) {
        return call("blockers", Map.of("threads", threadIds), Blockers.class);
    }

    public void detach() {
        call("detach", Map.of(), JsonNode.class);
    }

    /**
     * Waits for the duration (the interval of a command that samples twice), failing at once with
     * CONNECTION_LOST if the target exits or the agent goes away meanwhile, so a command never
     * sits out its interval against a dead JVM.
     */
    public void pause(Duration duration) {
        try {
            streams.idle(duration.toMillis());
        } catch (InterruptedIOException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.FAILURE, "interrupted", e);
        } catch (IOException e) {
            throw lost("the interval", e);
        }
    }

    /** Sends a command with arguments and reads its result as type. */
    public <T> T call(String command, Map<String, ?> arguments, Class<T> type) {
        JsonNode result = callRaw(command, arguments);
        try {
            return MAPPER.treeToValue(result, type);
        } catch (IOException e) {
            throw new CliFailure(ExitCode.FAILURE, "unexpected answer to " + command + ": " + e.getMessage(), e);
        }
    }

    /** Sends a command and returns its result as a JSON tree. */
    public JsonNode callRaw(String command, Map<String, ?> arguments) {
        long id = nextId++;
        ObjectNode request = MAPPER.createObjectNode();
        request.put("v", PROTOCOL_VERSION);
        request.put("id", id);
        request.put("cmd", command);
        arguments.forEach((key, value) -> request.set(key, MAPPER.valueToTree(value)));
        JsonNode answer;
        try {
            OutputStream out = streams.output;
            out.write(MAPPER.writeValueAsString(request).getBytes(StandardCharsets.UTF_8));
            out.write('\n');
            answer = MAPPER.readTree(parser);
        } catch (SocketTimeoutException e) {
            throw new CliFailure(ExitCode.TIMEOUT, targetName + " did not answer " + command + " in time", e);
        } catch (IOException e) {
            throw lost(command, e);
        }
        if (answer == null) {
            throw lost(command, null);
        }
        if (!answer.path("ok").asBoolean(false)) {
            JsonNode error = answer.path("error");
            String code = error.path("code").asText("unknown");
            if (code.equals("unsupported_version")) {
                throw new CliFailure(ExitCode.INCOMPATIBLE_AGENT, "the agent in " + targetName + " speaks another protocol version: detach it and run again");
            }
            throw new AgentError(code, error.path("message").asText("no message"));
        }
        if (answer.path("id").asLong(-1) != id) {
            throw new CliFailure(ExitCode.FAILURE, "answer out of order from " + targetName);
        }
        return answer.path("result");
    }

    private CliFailure lost(String during, IOException cause) {
        return new CliFailure(ExitCode.CONNECTION_LOST, "lost the connection to " + targetName + " during " + during
                + ": the JVM exited or the agent was detached", cause);
    }

    @Override
    public void close() {
        try {
            parser.close();
            streams.close();
        } catch (IOException ignored) {
            // closing a dead connection
        }
    }
}
