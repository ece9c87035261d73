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
 * text never loads databind, and a dump of thousands of threads is bound in one pass. The frames
 * of {@code stacks} come as {@code [method, line]} into the answer's frame table ({@code methods},
 * each distinct method once, after the threads): they are resolved once everything is read, and
 * identical frames (the same method and line, as in thousands of threads parked in the same pool)
 * become one shared {@link Frame}, so memory follows the distinct frames rather than the total.
 * Repeated strings become one String. Unknown fields are skipped, as databind would with
 * FAIL_ON_UNKNOWN_PROPERTIES off. One reader per answer.
 */
final class AnswerReader {
    private final JsonParser p;
    private final Map<String, String> strings = new HashMap<>();

    /** A thread of a {@code stacks} answer whose frames still refer to the frame table. */
    private record PendingStack(ThreadEntry thread, long[] frames, boolean truncated, List<LockedMonitor> locked,
                                WaitingFor waitingFor) {
    }

    /** A method of the frame table; a frame is it at a line. */
    private record Method(String className, String method, String file, boolean nativeMethod) {
    }

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
        List<PendingStack> threads = List.of();
        List<Method> methods = List.of();
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
                case "methods" -> methods = methods();
                default -> p.skipChildren();
            }
        }
        return new StackDump(time, lockSource, complete, resolve(threads, methods));
    }

    /** Frames resolved against the frame table, one shared Frame per method and line. */
    private List<ThreadStack> resolve(List<PendingStack> pending, List<Method> methods) throws IOException {
        Map<Long, Frame> frames = new HashMap<>();
        List<ThreadStack> threads = new ArrayList<>(pending.size());
        for (PendingStack t : pending) {
            List<Frame> stack = null;
            if (t.frames() != null) {
                Frame[] resolved = new Frame[t.frames().length];
                for (int i = 0; i < resolved.length; i++) {
                    long ref = t.frames()[i];
                    Frame frame = frames.get(ref);
                    if (frame == null) {
                        frame = frame(ref, methods);
                        frames.put(ref, frame);
                    }
                    resolved[i] = frame;
                }
                stack = java.util.Arrays.asList(resolved);
            }
            threads.add(new ThreadStack(t.thread(), stack, t.truncated(), t.locked(), t.waitingFor()));
        }
        return threads;
    }

    private Frame frame(long ref, List<Method> methods) throws IOException {
        int index = (int) (ref >> 32);
        int line = (int) ref;
        if (index == -1) { // a frame the agent could not index (out of memory)
            return new Frame(null, null, null, -1, false);
        }
        if (index < 0 || index >= methods.size()) {
            throw new com.fasterxml.jackson.core.JsonParseException(p, "frame refers to method " + index + " of "
                    + methods.size());
        }
        Method m = methods.get(index);
        return m == null ? new Frame(null, null, null, line, false) : new Frame(m.className(), m.method(), m.file(), line,
                m.nativeMethod());
    }

    private PendingStack threadStack() throws IOException {
        expect(JsonToken.START_OBJECT);
        ThreadEntry thread = null;
        long[] stack = null;
        boolean truncated = false;
        List<LockedMonitor> locked = null;
        WaitingFor waitingFor = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "thread" -> thread = threadEntry();
                case "frames" -> stack = frameRefs();
                case "truncated" -> truncated = p.getValueAsBoolean(false);
                case "locked" -> locked = locked();
                case "waitingFor" -> waitingFor = waitingFor();
                default -> p.skipChildren();
            }
        }
        return new PendingStack(thread, stack, truncated, locked, waitingFor);
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

    /** [[method, line], ...] as method << 32 | line; a null entry (not indexed) has method -1. */
    private long[] frameRefs() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(JsonToken.START_ARRAY);
        long[] refs = new long[16];
        int count = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            long method = -1;
            int line = -1;
            if (p.currentToken() == JsonToken.START_OBJECT) {
                // protocol 1 changed with the frame table: the CLI ships with its agent, but a JVM
                // may still hold one from a build before it
                throw new com.fasterxml.jackson.core.JsonParseException(p,
                        "frames written one object each, by an agent from before the frame table: detach it and run again");
            }
            if (p.currentToken() != JsonToken.VALUE_NULL) {
                expect(JsonToken.START_ARRAY);
                expect(p.nextToken(), JsonToken.VALUE_NUMBER_INT);
                method = p.getIntValue();
                expect(p.nextToken(), JsonToken.VALUE_NUMBER_INT);
                line = p.getIntValue();
                expect(p.nextToken(), JsonToken.END_ARRAY);
            }
            if (count == refs.length) {
                refs = java.util.Arrays.copyOf(refs, count * 2);
            }
            refs[count++] = method << 32 | (line & 0xFFFFFFFFL);
        }
        return java.util.Arrays.copyOf(refs, count);
    }

    /** The frame table: [{"class","method","file","native"}, ...]; null for a method the agent could not resolve. */
    private List<Method> methods() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return List.of();
        }
        expect(JsonToken.START_ARRAY);
        List<Method> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == JsonToken.VALUE_NULL) {
                list.add(null);
                continue;
            }
            expect(JsonToken.START_OBJECT);
            String className = null;
            String method = null;
            String file = null;
            boolean nativeMethod = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "class" -> className = text();
                    case "method" -> method = text();
                    case "file" -> file = text();
                    case "native" -> nativeMethod = p.getValueAsBoolean(false);
                    default -> p.skipChildren();
                }
            }
            list.add(new Method(className, method, file, nativeMethod));
        }
        return list;
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
        expect(p.currentToken(), token);
    }

    private void expect(JsonToken found, JsonToken token) throws IOException {
        if (found != token) {
            throw new com.fasterxml.jackson.core.JsonParseException(p, "expected " + token + ", found " + found);
        }
    }
}
