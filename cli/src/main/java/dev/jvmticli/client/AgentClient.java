package dev.jvmticli.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jvmticli.attach.AgentSocket;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** One connection to a resident agent; requests go one at a time. */
public final class AgentClient implements Closeable {
    public static final int PROTOCOL_VERSION = 7;
    /**
     * How often a client waiting between requests says hello: with all its slots taken, the agent
     * gives the slot of a client silent for 5 s to a new one (native/src/agent/server.c, EVICT_AFTER_SECONDS).
     */
    private static final long KEEP_ALIVE_NANOS = 2_000_000_000L;
    /** The JVMTI capability the agent lists virtual threads with; it names the capabilities it holds at hello. */
    private static final String VIRTUAL_THREADS_CAPABILITY = "can_support_virtual_threads";

    /** Streaming only: the hot commands are read without Jackson databind (see AnswerReader). */
    private static final JsonFactory FACTORY = new JsonFactory();

    /** The state of one socket connection, shared by its owner and the views it lends. */
    private static final class Connection {
        final ChannelStreams streams;
        JsonParser parser;
        long nextId = 1;
        long lastRequestNanos = System.nanoTime();
        Hello hello;

        Connection(ChannelStreams streams) {
            this.streams = streams;
        }
    }

    private final Connection connection;
    private final String targetName;
    private final boolean owner;

    private AgentClient(Connection connection, String targetName, boolean owner) {
        this.connection = connection;
        this.targetName = targetName;
        this.owner = owner;
    }

    /**
     * Connects to the agent socket at path, unchecked (tests speak to agents they started);
     * throws IOException when nothing listens there.
     */
    public static AgentClient connect(Path socket, Duration timeout, String targetName) throws IOException {
        var channel = java.nio.channels.SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return new AgentClient(new Connection(new ChannelStreams(channel, timeout)), targetName, true);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Connects to target's resident agent after {@link AgentSocket} checked that its socket is the
     * target's; empty when no agent listens.
     */
    public static Optional<AgentClient> connect(TargetProcess target, Duration timeout) {
        Optional<SocketChannel> channel = AgentSocket.connect(target, timeout);
        if (channel.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new AgentClient(new Connection(new ChannelStreams(channel.get(), timeout)), "JVM " + target.pid(), true));
        } catch (IOException e) {
            try {
                channel.get().close();
            } catch (IOException ignored) {
                // the failure to report is the first one
            }
            throw new CliFailure(ExitCode.FAILURE, "cannot set up the connection to JVM " + target.pid() + ": " + e.getMessage(), e);
        }
    }

    /**
     * The same connection for a borrower whose {@link #close()} must leave it open (the shell lends
     * its one connection to each command it runs); requests still go one at a time.
     */
    public AgentClient borrowed() {
        return new AgentClient(connection, targetName, false);
    }

    /** Jackson databind, set up only by the commands that need it (--json, generic calls). */
    private static final class Databind {
        static final ObjectMapper MAPPER = new ObjectMapper()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    }

    public static ObjectMapper mapper() {
        return Databind.MAPPER;
    }

    public Hello hello() {
        connection.hello = exchange("hello", Map.of(), () -> new AnswerReader(connection.parser).hello());
        return connection.hello;
    }

    /** The target JVM as the last hello described it (one is made on connecting). */
    public Hello.Jvm jvm() {
        return (connection.hello == null ? hello() : connection.hello).jvm();
    }

    /** Where the agent was loaded, as the last hello said: "startup" (-agentpath) or "attach". */
    public String phase() {
        return (connection.hello == null ? hello() : connection.hello).phase();
    }

    public ThreadList threads() {
        return threads(ThreadsRequest.JAVA_THREADS);
    }

    /** The live platform threads (with the JVM's own, when asked). */
    public ThreadList threads(ThreadsRequest request) {
        return exchange(request.command(), request.arguments(), () -> new AnswerReader(connection.parser).threadList());
    }

    /** Stacks and lock facts. */
    public StackDump stacks(StacksRequest request) {
        return stacks(request, null);
    }

    /** Stacks and lock facts, each thread also handed to listener (null: none) while the rest is still arriving. */
    public StackDump stacks(StacksRequest request, StackListener listener) {
        return exchange(request.command(), request.arguments(), () -> new AnswerReader(connection.parser).stackDump(listener));
    }

    public VmInfo vm() {
        return call("vm", Map.of(), VmInfo.class);
    }

    /**
     * The target's virtual threads.
     *
     * @throws CliFailure with {@link ExitCode#NO_VIRTUAL_THREADS} when the target has none (JDK before 21)
     */
    public VirtualDump vthreads(VthreadsRequest request) {
        try {
            return exchange(request.command(), request.arguments(), () -> new AnswerReader(connection.parser).virtualThreads());
        } catch (AgentError e) {
            if (e.code().equals("no_virtual_threads")) {
                throw new CliFailure(ExitCode.NO_VIRTUAL_THREADS, targetName + ": " + e.agentMessage());
            }
            throw e;
        }
    }

    /**
     * As {@link #vthreads}, but empty (not a failure) when the target has no virtual threads: not
     * asked at all when the agent said on connecting that it does not hold the capability without
     * which it lists none (any JVM before 21).
     */
    public java.util.Optional<VirtualDump> vthreadsIfAny(VthreadsRequest request) {
        Hello hello = connection.hello;
        if (hello != null && hello.capabilities() != null && !hello.capabilities().contains(VIRTUAL_THREADS_CAPABILITY)) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(vthreads(request));
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

    /** The CPU time of the live platform threads with these ids (null: all), by Java id. */
    public Map<Long, Long> cpuTimes(java.util.Collection<Long> threadIds) {
        return call("cpu", threadIds == null ? Map.of() : Map.of("threads", threadIds), CpuTimes.class).byId();
    }

    public void detach() {
        exchange("detach", Map.of(), () -> {
            connection.parser.skipChildren();
            return null;
        });
    }

    /**
     * Waits for the duration (the interval of a command that samples twice), failing at once with
     * CONNECTION_LOST if the target exits or the agent goes away meanwhile, so a command never
     * sits out its interval against a dead JVM. A hello every 2 s meanwhile keeps the connection's slot.
     * An interrupt (Ctrl-C) ends it early, the interrupt kept.
     */
    public void pause(Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        try {
            long left;
            while ((left = deadline - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted()) {
                long untilKeepAlive = connection.lastRequestNanos + KEEP_ALIVE_NANOS - System.nanoTime();
                if (untilKeepAlive <= 0) {
                    keepAliveHello();
                } else {
                    synchronized (connection) {
                        connection.streams.idle(Math.max(1, Math.min(left, untilKeepAlive) / 1_000_000L));
                    }
                }
            }
        } catch (InterruptedIOException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.FAILURE, "interrupted", e);
        } catch (IOException e) {
            throw lost("the interval", e);
        }
    }

    /** A hello that an interrupt (Ctrl-C ending a window) lets finish: the window ends after it, its connection still in step. */
    private void keepAliveHello() {
        connection.streams.holdInterrupts(true);
        try {
            hello();
        } finally {
            connection.streams.holdInterrupts(false);
        }
    }

    /**
     * Says hello when no request went out for 2 s, from any thread: what keeps the connection of a
     * shell waiting at its prompt, whose slot the agent would otherwise give to a new client when
     * all are taken.
     */
    public void keepAlive() {
        synchronized (connection) {
            if (System.nanoTime() - connection.lastRequestNanos >= KEEP_ALIVE_NANOS) {
                hello();
            }
        }
    }

    /**
     * Sends a command with arguments and reads its result as type, binding it while it streams
     * in: a large answer (a stacks of thousands of threads is tens of megabytes) never exists as a
     * JSON tree.
     */
    public <T> T call(String command, Map<String, ?> arguments, Class<T> type) {
        return exchange(command, arguments, () -> mapper().readValue(connection.parser, type));
    }

    /** As {@link #call(String, Map, Class)}, waiting up to answerTimeout for this answer instead of the connection's timeout. */
    public <T> T call(String command, Map<String, ?> arguments, Class<T> type, Duration answerTimeout) {
        Duration usual = connection.streams.timeout(answerTimeout);
        try {
            return call(command, arguments, type);
        } finally {
            connection.streams.timeout(usual);
        }
    }

    /** Sends a request and reads its result as type, as {@link #call(String, Map, Class)}. */
    public <T> T call(AgentRequest request, Class<T> type) {
        return call(request.command(), request.arguments(), type);
    }

    /** As {@link #call(AgentRequest, Class)}, waiting up to answerTimeout for this answer instead of the connection's timeout. */
    public <T> T call(AgentRequest request, Class<T> type, Duration answerTimeout) {
        return call(request.command(), request.arguments(), type, answerTimeout);
    }

    /**
     * Ends a session of this connection without reading its report (stopCommand, as
     * "trace.stop"), as a way out that is not the end: a failure, an interrupt. A session already
     * gone, or a connection already lost, is no error: the agent ends a lost connection's sessions
     * itself, and puts back what they changed.
     */
    public void stopQuietly(String stopCommand) {
        try {
            call(stopCommand, Map.of(), Map.class);
        } catch (RuntimeException alreadyGone) {
            // nothing left to stop, or no connection to stop it on
        }
    }

    /** Sends a command and returns its result as a JSON tree. */
    public JsonNode callRaw(String command, Map<String, ?> arguments) {
        return exchange(command, arguments, () -> mapper().readTree(connection.parser));
    }

    /** How the result value is read; the parser stands on its first token. */
    private interface ResultReader<T> {
        T read() throws IOException;
    }

    /**
     * One request and its answer {@code {"v":..,"id":..,"ok":..,"result"|"error":..}}, read field by
     * field as the agent writes them: the envelope is checked before the result is bound.
     */
    private <T> T exchange(String command, Map<String, ?> arguments, ResultReader<T> resultReader) {
        synchronized (connection) { // a keep-alive from another thread (the shell's) waits for the answer
            return exchangeHeld(command, arguments, resultReader);
        }
    }

    private <T> T exchangeHeld(String command, Map<String, ?> arguments, ResultReader<T> resultReader) {
        long id = connection.nextId++;
        try {
            OutputStream out = connection.streams.output;
            IOException unsent = null;
            connection.lastRequestNanos = System.nanoTime();
            try {
                out.write(request(id, command, arguments));
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                unsent = e; // the agent may have answered before it hung up: "all connections busy"
            }
            if (connection.parser == null) {
                // made once the first request is out: Jackson reads the first bytes at creation
                connection.parser = FACTORY.createParser(connection.streams.input);
            }
            if (connection.parser.nextToken() != JsonToken.START_OBJECT) {
                throw lost(command, unsent);
            }
            long answerId = -1;
            boolean ok = false;
            T result = null;
            boolean hasResult = false;
            String[] error = null;
            while (connection.parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = connection.parser.currentName();
                connection.parser.nextToken();
                switch (field) {
                    case "id" -> answerId = connection.parser.getValueAsLong(-1);
                    case "ok" -> ok = connection.parser.getValueAsBoolean(false);
                    case "error" -> error = error();
                    case "result" -> {
                        if (ok && answerId != id) {
                            throw new CliFailure(ExitCode.FAILURE, "answer out of order from " + targetName);
                        }
                        try {
                            result = resultReader.read();
                        } catch (JsonProcessingException e) {
                            throw new CliFailure(ExitCode.FAILURE, "unexpected answer to " + command + ": " + e.getOriginalMessage(), e);
                        }
                        hasResult = true;
                    }
                    default -> connection.parser.skipChildren();
                }
            }
            if (!ok) {
                throw failure(error);
            }
            if (answerId != id) {
                throw new CliFailure(ExitCode.FAILURE, "answer out of order from " + targetName);
            }
            if (!hasResult) {
                throw new CliFailure(ExitCode.FAILURE, "unexpected answer to " + command + ": no result");
            }
            return result;
        } catch (SocketTimeoutException e) {
            throw new CliFailure(ExitCode.TIMEOUT, targetName + " did not answer " + command + " within "
                    + text(connection.streams.timeout()) + " (--timeout)", e);
        } catch (IOException e) {
            throw lost(command, e);
        }
    }

    private static String text(Duration timeout) {
        long millis = timeout.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    private static byte[] request(long id, String command, Map<String, ?> arguments) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(128);
        try (JsonGenerator json = FACTORY.createGenerator(bytes)) {
            json.writeStartObject();
            json.writeNumberField("v", PROTOCOL_VERSION);
            json.writeNumberField("id", id);
            json.writeStringField("cmd", command);
            for (Map.Entry<String, ?> argument : arguments.entrySet()) {
                json.writeFieldName(argument.getKey());
                writeValue(json, argument.getValue());
            }
            json.writeEndObject();
        }
        bytes.write('\n');
        return bytes.toByteArray();
    }

    /**
     * Writes a request and reads it back, in memory, as a connection does: the protocol's writer and
     * reader initialized before the first connection needs them (see {@link ConnectionWarmUp}).
     */
    static void warmUpProtocol() {
        try (JsonParser parser = FACTORY.createParser(request(0, "hello", Map.of()))) {
            JsonToken token;
            do {
                token = parser.nextToken();
            } while (token != null);
        } catch (IOException | RuntimeException e) {
            // nothing to warm up: the command's own connection reports what is wrong
        }
    }

    /** Plain values without databind; anything else through it. */
    private static void writeValue(JsonGenerator json, Object value) throws IOException {
        if (value == null) {
            json.writeNull();
        } else if (value instanceof String text) {
            json.writeString(text);
        } else if (value instanceof Boolean flag) {
            json.writeBoolean(flag);
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            json.writeNumber(((Number) value).longValue());
        } else if (value instanceof Iterable<?> items) {
            json.writeStartArray();
            for (Object item : items) {
                writeValue(json, item);
            }
            json.writeEndArray();
        } else {
            mapper().writeValue(json, value);
        }
    }

    /** The error object: {"code": .., "message": ..}. */
    private String[] error() throws IOException {
        String[] error = {"unknown", "no message"};
        if (connection.parser.currentToken() != JsonToken.START_OBJECT) {
            connection.parser.skipChildren();
            return error;
        }
        while (connection.parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = connection.parser.currentName();
            connection.parser.nextToken();
            if (field.equals("code") && connection.parser.currentToken() == JsonToken.VALUE_STRING) {
                error[0] = connection.parser.getText();
            } else if (field.equals("message") && connection.parser.currentToken() == JsonToken.VALUE_STRING) {
                error[1] = connection.parser.getText();
            } else {
                connection.parser.skipChildren();
            }
        }
        return error;
    }

    private RuntimeException failure(String[] error) {
        String code = error == null ? "unknown" : error[0];
        if (code.equals("connections_busy")) {
            return new CliFailure(ExitCode.AGENT_BUSY, "all connections busy: the agent in " + targetName
                    + " serves as many clients as it can and none of them is idle; try again later");
        }
        if (code.equals("unsupported_version")) {
            return new CliFailure(ExitCode.INCOMPATIBLE_AGENT, "the agent in " + targetName + " speaks another protocol version: unload it with jvmti-cli detach and run again");
        }
        return new AgentError(code, error == null ? "no message" : error[1]);
    }

    private CliFailure lost(String during, IOException cause) {
        return new CliFailure(ExitCode.CONNECTION_LOST, "lost the connection to " + targetName + " during " + during
                + ": the JVM exited or the agent was detached", cause);
    }

    /** Closes the connection; a borrowed view leaves it to its owner. */
    @Override
    public void close() {
        if (!owner) {
            return;
        }
        try {
            if (connection.parser != null) {
                connection.parser.close();
            }
            connection.streams.close();
        } catch (IOException ignored) {
            // closing a dead connection
        }
    }
}
