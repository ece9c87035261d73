package dev.jvmticli.client;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the answers of the hot commands ({@code hello}, {@code threads}, {@code stacks}) straight
 * from the token stream with jackson-core, without Jackson databind: a CLI run that only prints
 * text never loads databind, and a dump of thousands of threads is bound in one pass. Identical
 * frames (the same method and line, as in thousands of threads parked in the same pool) become
 * one shared {@link Frame}, and repeated strings one String, so memory follows the distinct
 * frames rather than the total. Unknown fields are skipped, as databind would with
 * FAIL_ON_UNKNOWN_PROPERTIES off. One reader per answer.
 */
final class AnswerReader {
    private final JsonParser p;
    private final Map<String, String> strings = new HashMap<>();
    private final Map<Frame, Frame> frames = new HashMap<>();

    AnswerReader(JsonParser parser) {
        this.p = parser;
    }

    Hello hello() throws IOException {
        String agent = null;
        int protocol = 0;
        long pid = 0;
        String phase = null;
        Hello.Jvm jvm = null;
        List<String> capabilities = null;
        List<String> commands = null;
        expect(JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "agent" -> agent = text();
                case "protocol" -> protocol = p.getValueAsInt(0);
                case "pid" -> pid = p.getValueAsLong(0);
                case "phase" -> phase = text();
                case "jvm" -> jvm = jvm();
                case "capabilities" -> capabilities = stringList();
                case "commands" -> commands = stringList();
                default -> p.skipChildren();
            }
        }
        return new Hello(agent, protocol, pid, phase, jvm, capabilities, commands);
    }

    private Hello.Jvm jvm() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(JsonToken.START_OBJECT);
        String name = null;
        String vendor = null;
        String version = null;
        String specVersion = null;
        String info = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "name" -> name = text();
                case "vendor" -> vendor = text();
                case "version" -> version = text();
                case "specVersion" -> specVersion = text();
                case "info" -> info = text();
                default -> p.skipChildren();
            }
        }
        return new Hello.Jvm(name, vendor, version, specVersion, info);
    }

    ThreadList threadList() throws IOException {
        List<ThreadEntry> threads = List.of();
        boolean complete = false;
        expect(JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "lockFactsComplete" -> complete = p.getValueAsBoolean(false);
                case "threads" -> {
                    threads = new ArrayList<>();
                    expect(JsonToken.START_ARRAY);
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        threads.add(threadEntry());
                    }
                }
                default -> p.skipChildren();
            }
        }
        return new ThreadList(complete, threads);
    }

    StackDump stackDump() throws IOException {
        long time = 0;
        String lockSource = null;
        boolean complete = false;
        List<ThreadStack> threads = List.of();
        expect(JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "time" -> time = p.getValueAsLong(0);
                case "lockSource" -> lockSource = text();
                case "lockFactsComplete" -> complete = p.getValueAsBoolean(false);
                case "threads" -> {
                    threads = new ArrayList<>();
                    expect(JsonToken.START_ARRAY);
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        threads.add(threadStack());
                    }
                }
                default -> p.skipChildren();
            }
        }
        return new StackDump(time, lockSource, complete, threads);
    }

    private ThreadStack threadStack() throws IOException {
        expect(JsonToken.START_OBJECT);
        ThreadEntry thread = null;
        List<Frame> stack = null;
        boolean truncated = false;
        List<LockedMonitor> locked = null;
        WaitingFor waitingFor = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "thread" -> thread = threadEntry();
                case "frames" -> stack = frames();
                case "truncated" -> truncated = p.getValueAsBoolean(false);
                case "locked" -> locked = locked();
                case "waitingFor" -> waitingFor = waitingFor();
                default -> p.skipChildren();
            }
        }
        return new ThreadStack(thread, stack, truncated, locked, waitingFor);
    }

    private ThreadEntry threadEntry() throws IOException {
        expect(JsonToken.START_OBJECT);
        long id = 0;
        String name = null;
        String state = null;
        List<String> flags = null;
        boolean daemon = false;
        int priority = 0;
        String group = null;
        long cpuNanos = 0;
        long nid = 0;
        boolean agent = false;
        WaitingFor waitingFor = null;
        boolean virtual = false;
        Long carrierId = null;
        boolean pinned = false;
        Long carrying = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "id" -> id = p.getValueAsLong(0);
                case "name" -> name = p.getValueAsString();
                case "state" -> state = text();
                case "flags" -> flags = stringList();
                case "daemon" -> daemon = p.getValueAsBoolean(false);
                case "priority" -> priority = p.getValueAsInt(0);
                case "group" -> group = text();
                case "cpuNanos" -> cpuNanos = p.getValueAsLong(0);
                case "nid" -> nid = p.getValueAsLong(0);
                case "agent" -> agent = p.getValueAsBoolean(false);
                case "waitingFor" -> waitingFor = waitingFor();
                case "virtual" -> virtual = p.getValueAsBoolean(false);
                case "carrierId" -> carrierId = optionalLong();
                case "pinned" -> pinned = p.getValueAsBoolean(false);
                case "carrying" -> carrying = optionalLong();
                default -> p.skipChildren();
            }
        }
        return new ThreadEntry(id, name, state, flags, daemon, priority, group, cpuNanos, nid, agent, waitingFor, virtual,
                carrierId, pinned, carrying);
    }

    private Long optionalLong() throws IOException {
        return p.currentToken() == JsonToken.VALUE_NULL ? null : p.getValueAsLong(0);
    }

    private List<Frame> frames() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(JsonToken.START_ARRAY);
        List<Frame> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            list.add(frame());
        }
        return list;
    }

    private Frame frame() throws IOException {
        expect(JsonToken.START_OBJECT);
        String className = null;
        String method = null;
        String file = null;
        int line = 0;
        boolean nativeMethod = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "class" -> className = text();
                case "method" -> method = text();
                case "file" -> file = text();
                case "line" -> line = p.getValueAsInt(0);
                case "native" -> nativeMethod = p.getValueAsBoolean(false);
                default -> p.skipChildren();
            }
        }
        Frame frame = new Frame(className, method, file, line, nativeMethod);
        Frame shared = frames.putIfAbsent(frame, frame);
        return shared == null ? frame : shared;
    }

    private List<LockedMonitor> locked() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(JsonToken.START_ARRAY);
        List<LockedMonitor> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            expect(JsonToken.START_OBJECT);
            String className = null;
            long hash = 0;
            int depth = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "class" -> className = text();
                    case "hash" -> hash = p.getValueAsLong(0);
                    case "depth" -> depth = p.getValueAsInt(0);
                    default -> p.skipChildren();
                }
            }
            list.add(new LockedMonitor(className, hash, depth));
        }
        return list;
    }

    private WaitingFor waitingFor() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(JsonToken.START_OBJECT);
        String kind = null;
        String className = null;
        long hash = 0;
        long ownerId = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "kind" -> kind = text();
                case "class" -> className = text();
                case "hash" -> hash = p.getValueAsLong(0);
                case "ownerId" -> ownerId = p.getValueAsLong(0);
                default -> p.skipChildren();
            }
        }
        return new WaitingFor(kind, className, hash, ownerId);
    }

    private List<String> stringList() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(JsonToken.START_ARRAY);
        List<String> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            list.add(text());
        }
        return list;
    }

    /** A string value (or null), shared with every equal one read before. */
    private String text() throws IOException {
        String value = p.getValueAsString();
        if (value == null) {
            return null;
        }
        String shared = strings.putIfAbsent(value, value);
        return shared == null ? value : shared;
    }

    private void expect(JsonToken token) throws IOException {
        if (p.currentToken() != token) {
            throw new com.fasterxml.jackson.core.JsonParseException(p, "expected " + token + ", found " + p.currentToken());
        }
    }
}
