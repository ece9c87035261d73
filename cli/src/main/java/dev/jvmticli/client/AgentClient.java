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
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** One connection to a resident agent; requests go one at a time. */
public final class AgentClient implements Closeable {
    public static final int PROTOCOL_VERSION = 1;

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final ChannelStreams streams;
    private final JsonParser parser;
    private final String targetName;
    private final AtomicLong nextId;
    private final boolean owner;

    private AgentClient(ChannelStreams streams, String targetName) throws IOException {
        this.streams = streams;
        this.targetName = targetName;
        // a Reader, not the stream: Jackson would read ahead at creation to sniff the encoding
        this.parser = MAPPER.getFactory().createParser(new InputStreamReader(streams.input, StandardCharsets.UTF_8));
        this.nextId = new AtomicLong(1);
        this.owner = true;
    }

    private AgentClient(AgentClient lender) {
        this.streams = lender.streams;
        this.parser = lender.parser;
        this.targetName = lender.targetName;
        this.nextId = lender.nextId;
        this.owner = false;
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

    /**
     * The same connection for a borrower whose {@link #close()} must leave it open (the shell lends
     * its one connection to each command it runs); requests still go one at a time.
     */
    public AgentClient borrowed() {
        return new AgentClient(this);
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public Hello hello() {
        return call("hello", Map.of(), Hello.class);
    }

    public ThreadList threads() {
        return call("threads", Map.of(), ThreadList.class);
    }

    public void detach() {
        call("detach", Map.of(), JsonNode.class);
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
        long id = nextId.getAndIncrement();
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

    private CliFailure lost(String command, IOException cause) {
        return new CliFailure(ExitCode.CONNECTION_LOST, "lost the connection to " + targetName + " during " + command
                + ": the JVM exited or the agent was detached", cause);
    }

    @Override
    public void close() {
        if (!owner) {
            return;
        }
        try {
            parser.close();
            streams.close();
        } catch (IOException ignored) {
            // closing a dead connection
        }
    }
}
