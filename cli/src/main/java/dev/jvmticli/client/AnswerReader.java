package dev.jvmticli.client;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the answers of the hot commands ({@code hello}, {@code threads}, {@code stacks} and
 * {@code vthreads}) straight from the token stream with jackson-core,
 * without Jackson databind: a CLI run that only prints text never loads databind, and a dump of
 * thousands of threads is bound in one pass. A thread of
 * {@code stacks} names its top node in the answer's stack tree ({@code nodes} of parent, method and
 * line, each distinct call path once, with {@code methods}, each distinct method once). The agent
 * writes the threads in parts, in order, each part with the nodes and methods it adds to the tree
 * ahead of its threads, each thread with its lock facts: a thread is resolved, and handed to a
 * {@link StackListener}, as soon as it is read. Repeated strings become one String.
 * Unknown fields are skipped, as databind would with FAIL_ON_UNKNOWN_PROPERTIES off. One reader
 * per answer.
 */
final class AnswerReader {
    private final JsonParser p;
    private final Map<String, String> strings = new HashMap<>();

    /** A method of the frame table; a frame is it at a line. */
    private record Method(String className, String method, String file, boolean nativeMethod, String module) {
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
        List<VmThread> vmThreads = null;
        CpuRead cpuRead = null;
        UsageFields usage = new UsageFields();
        boolean complete = false;
        expect(JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "lockFactsComplete" -> complete = p.getValueAsBoolean(false);
                case "cpuRead" -> cpuRead = cpuRead();
                case "threads" -> threads = array(this::threadEntry);
                case "vmThreads" -> vmThreads = vmThreads();
                default -> usageField(field, usage);
            }
        }
        return new ThreadList(complete, threads, vmThreads, cpuRead, usage.read());
    }

    /** The members of an answer asked with usage, as they come. */
    private static final class UsageFields {
        private final Map<String, ThreadUsage> threads = new HashMap<>();
        private boolean any;
        private PauseTotals before;
        private PauseTotals after;

        UsageRead read() {
            return any ? new UsageRead(threads, before, after) : null;
        }
    }

    /** "usage" (Java threads by id), "vmUsage" (by nid), "pausesBefore", "pausesAfter"; any other member is skipped. */
    private void usageField(String field, UsageFields usage) throws IOException {
        switch (field) {
            case "usage" -> usage.any |= threadUsages("id", "java ", usage.threads);
            case "vmUsage" -> usage.any |= threadUsages("nid", "nid ", usage.threads);
            case "pausesBefore" -> {
                usage.before = pauseTotals();
                usage.any = true;
            }
            case "pausesAfter" -> {
                usage.after = pauseTotals();
                usage.any = true;
            }
            default -> p.skipChildren();
        }
    }

    /** [{key, "userNanos", "systemNanos", "allocatedBytes"}], each by RunningThread.identity(): prefix and key. */
    private boolean threadUsages(String key, String prefix, Map<String, ThreadUsage> into) throws IOException {
        expect(JsonToken.START_ARRAY);
        while (p.nextToken() != JsonToken.END_ARRAY) {
            expect(JsonToken.START_OBJECT);
            Long id = null;
            Long user = null;
            Long system = null;
            Long allocated = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                Long number = p.currentToken() == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : null;
                if (number == null) {
                    p.skipChildren();
                } else if (field.equals(key)) {
                    id = number;
                } else {
                    switch (field) {
                        case "userNanos" -> user = number;
                        case "systemNanos" -> system = number;
                        case "allocatedBytes" -> allocated = number;
                        default -> { }
                    }
                }
            }
            if (id != null) {
                into.put(prefix + id, new ThreadUsage(user, system, allocated));
            }
        }
        return true;
    }

    /** {"nanos", "safepoints": {"count", "atSafepointMillis", "reachingMillis"}, "collectors": [{"name", "count", "millis"}]}. */
    private PauseTotals pauseTotals() throws IOException {
        expect(JsonToken.START_OBJECT);
        long nanos = -1;
        PauseTotals.Safepoints safepoints = null;
        List<PauseTotals.Collector> collectors = List.of();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "nanos" -> nanos = p.getValueAsLong(-1);
                case "safepoints" -> {
                    Map<String, Long> numbers = numbers();
                    safepoints = new PauseTotals.Safepoints(numbers.getOrDefault("count", 0L), numbers.getOrDefault("atSafepointMillis", 0L),
                            numbers.getOrDefault("reachingMillis", 0L));
                }
                case "collectors" -> collectors = array(this::collector);
                default -> p.skipChildren();
            }
        }
        return new PauseTotals(nanos, safepoints, collectors);
    }

    private PauseTotals.Collector collector() throws IOException {
        expect(JsonToken.START_OBJECT);
        String name = null;
        long count = 0;
        long millis = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "name" -> name = text();
                case "count" -> count = p.getValueAsLong(0);
                case "millis" -> millis = p.getValueAsLong(0);
                default -> p.skipChildren();
            }
        }
        return new PauseTotals.Collector(name, count, millis);
    }

    /** An object of integer members. */
    private Map<String, Long> numbers() throws IOException {
        expect(JsonToken.START_OBJECT);
        Map<String, Long> numbers = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            if (p.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                numbers.put(field, p.getLongValue());
            } else {
                p.skipChildren();
            }
        }
        return numbers;
    }

    /** The agent's stamps around its CPU reads; null where they are not an object of two numbers. */
    private CpuRead cpuRead() throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return null;
        }
        Long start = null;
        Long end = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            boolean number = p.currentToken() == JsonToken.VALUE_NUMBER_INT;
            switch (field) {
                case "startNanos" -> start = number ? p.getLongValue() : null;
                case "endNanos" -> end = number ? p.getLongValue() : null;
                default -> p.skipChildren();
            }
        }
        return start == null || end == null ? null : new CpuRead(start, end);
    }

    /**
     * A {@code vthreads} answer: each thread with, where asked for, its stack (an index into
     * {@code stacks}, or its own {@code frames} past the agent's table) and lock facts, then the
     * distinct stacks, the summary and the flags. The bare {@code threads} reads one on every
     * JDK 21+ target (to find carriers), {@code deadlocks} and {@code monitors} one with lock facts.
     */
    VirtualDump virtualThreads() throws IOException {
        long time = 0;
        List<VirtualDump.VirtualStack> threads = List.of();
        List<List<Frame>> stacks = List.of();
        String lockSource = null;
        boolean lockFactsComplete = false;
        boolean complete = false;
        VirtualDump.Summary summary = null;
        Long found = null;
        expect(JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "time" -> time = p.getValueAsLong(0);
                case "threads" -> threads = array(this::virtualThread);
                case "stacks" -> stacks = array(this::frames);
                case "lockSource" -> lockSource = text();
                case "lockFactsComplete" -> lockFactsComplete = p.getValueAsBoolean(false);
                case "complete" -> complete = p.getValueAsBoolean(false);
                case "summary" -> summary = summary();
                case "found" -> found = p.getValueAsLong();
                default -> p.skipChildren();
            }
        }
        return new VirtualDump(time, threads, stacks, lockSource, lockFactsComplete, complete, summary, found);
    }

    private VirtualDump.VirtualStack virtualThread() throws IOException {
        expect(JsonToken.START_OBJECT);
        ThreadEntry thread = null;
        Integer stack = null;
        List<Frame> frames = null;
        boolean truncated = false;
        List<LockedMonitor> locked = null;
        WaitingFor waitingFor = null;
        boolean unsettled = false;
        boolean waitUnnamed = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "thread" -> thread = threadEntry();
                case "stack" -> {
                    expect(JsonToken.VALUE_NUMBER_INT);
                    stack = p.getIntValue();
                }
                case "frames" -> frames = frames();
                case "truncated" -> truncated = p.getValueAsBoolean(false);
                case "locked" -> locked = locked();
                case "waitingFor" -> waitingFor = waitingFor();
                case "unsettled" -> unsettled = p.getValueAsBoolean(false);
                case "waitUnnamed" -> waitUnnamed = p.getValueAsBoolean(false);
                default -> p.skipChildren();
            }
        }
        return new VirtualDump.VirtualStack(thread, stack, frames, truncated, locked, waitingFor, unsettled, waitUnnamed);
    }

    /** A stack written out frame by frame, top first; a frame the agent could not resolve is null there. */
    private List<Frame> frames() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(JsonToken.START_ARRAY);
        List<Frame> frames = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == JsonToken.VALUE_NULL) {
                frames.add(new Frame(null, null, null, -1, false));
                continue;
            }
            frames.add(frame());
        }
        return frames;
    }

    private VirtualDump.Summary summary() throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(JsonToken.START_OBJECT);
        long count = 0;
        long mounted = 0;
        long pinned = 0;
        Map<String, Long> byState = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "count" -> count = p.getValueAsLong(0);
                case "mounted" -> mounted = p.getValueAsLong(0);
                case "pinned" -> pinned = p.getValueAsLong(0);
                case "byState" -> {
                    byState = new LinkedHashMap<>();
                    expect(JsonToken.START_OBJECT);
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String state = p.currentName();
                        p.nextToken();
                        byState.put(state, p.getValueAsLong(0));
                    }
                }
                default -> p.skipChildren();
            }
        }
        return new VirtualDump.Summary(count, mounted, pinned, byState);
    }

    /** A {@code stacks} answer; each thread handed to listener (null: none) as soon as it is read. */
    StackDump stackDump(StackListener listener) throws IOException {
        long time = 0;
        String lockSource = null;
        boolean complete = false;
        List<ThreadStack> threads = new ArrayList<>();
        List<VmThread> vmThreads = null;
        OwnedSynchronizers synchronizers = null;
        CpuRead cpuRead = null;
        UsageFields usage = new UsageFields();
        expect(JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "time" -> time = p.getValueAsLong(0);
                case "cpuRead" -> cpuRead = cpuRead();
                case "lockSource" -> lockSource = text();
                case "lockFactsComplete" -> complete = p.getValueAsBoolean(false);
                case "ownableSynchronizers" -> synchronizers = ownedSynchronizers();
                case "vmThreads" -> vmThreads = vmThreads();
                case "parts" -> { // after all the above but lockFactsComplete (stacks.c)
                    if (listener != null) {
                        listener.started(time, vmThreads);
                    }
                    StackTree tree = new StackTree();
                    expect(JsonToken.START_ARRAY);
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        part(tree, threads, listener);
                    }
                }
                default -> usageField(field, usage);
            }
        }
        return new StackDump(time, lockSource, complete, threads, vmThreads, synchronizers, cpuRead, usage.read());
    }

    /** {"owned": [{"ownerId", "class", "hash"}, ...]}. */
    private OwnedSynchronizers ownedSynchronizers() throws IOException {
        expect(JsonToken.START_OBJECT);
        List<OwnedSynchronizers.Owned> owned = new ArrayList<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            if (!field.equals("owned")) {
                p.skipChildren();
                continue;
            }
            expect(JsonToken.START_ARRAY);
            while (p.nextToken() != JsonToken.END_ARRAY) {
                expect(JsonToken.START_OBJECT);
                long ownerId = -1;
                String className = null;
                long hash = 0;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    switch (name) {
                        case "ownerId" -> ownerId = p.getValueAsLong(-1);
                        case "class" -> className = text();
                        case "hash" -> hash = p.getValueAsLong(0);
                        default -> p.skipChildren();
                    }
                }
                owned.add(new OwnedSynchronizers.Owned(ownerId, className, hash));
            }
        }
        return new OwnedSynchronizers(owned);
    }

    /** A part of a {@code stacks} answer: the nodes and methods it adds to tree, then its threads. */
    private void part(StackTree tree, List<ThreadStack> threads, StackListener listener) throws IOException {
        expect(JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "nodes" -> tree.addNodes();
                case "methods" -> tree.addMethods(methods());
                case "threads" -> {
                    expect(JsonToken.START_ARRAY);
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        ThreadStack thread = threadStack(tree);
                        threads.add(thread);
                        if (listener != null) {
                            listener.thread(thread);
                        }
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    /**
     * The answer's stack tree, as its parts add to it: node i is {@code nodes[3i..3i+2]} = parent,
     * method, line, and a parent always comes before its children. Threads whose stacks end at the
     * same node get the same list, and all frames of one method and line are one Frame, so memory
     * follows the distinct frames rather than the total.
     */
    private final class StackTree {
        /** The deepest stack the agent sends (its limit on --max-depth). */
        private static final int MAX_DEPTH = 65536;
        /** Frame references all the threads' stacks may hold: 100,000 threads 300 deep; past it the answer is refused. */
        private static final long MAX_FRAMES = 30_000_000;

        private int[] nodes = new int[3 * 256];
        private int nodeCount;
        private final List<Method> methods = new ArrayList<>();
        private Frame[] frames = new Frame[256];
        private final Map<Integer, List<Frame>> stacks = new HashMap<>();
        private final Map<Long, Frame> shared = new HashMap<>();
        private long framesHeld;

        /** [[parent, method, line], ...], numbered on from the nodes before; every parent comes before its node. */
        void addNodes() throws IOException {
            expect(JsonToken.START_ARRAY);
            while (p.nextToken() != JsonToken.END_ARRAY) {
                expect(JsonToken.START_ARRAY);
                int at = 3 * nodeCount;
                if (at + 3 > nodes.length) {
                    nodes = Arrays.copyOf(nodes, nodes.length * 2);
                }
                for (int k = 0; k < 3; k++) {
                    expect(p.nextToken(), JsonToken.VALUE_NUMBER_INT);
                    nodes[at + k] = p.getIntValue();
                }
                expect(p.nextToken(), JsonToken.END_ARRAY);
                if (nodes[at] < -1 || nodes[at] >= nodeCount) {
                    throw new JsonParseException(p, "node " + nodeCount + " has parent " + nodes[at]);
                }
                nodeCount++;
            }
            if (frames.length < nodeCount) {
                frames = Arrays.copyOf(frames, Math.max(nodeCount, 2 * frames.length));
            }
        }

        /** Methods numbered on from those before. */
        void addMethods(List<Method> more) {
            methods.addAll(more);
        }

        List<Frame> stack(int top) throws IOException {
            if (top < -1 || top >= nodeCount) {
                throw new JsonParseException(p, "a stack ends at node " + top + " of " + nodeCount);
            }
            List<Frame> stack = stacks.get(top);
            if (stack == null) {
                int depth = 0;
                for (int node = top; node >= 0; node = nodes[3 * node]) {
                    if (++depth > MAX_DEPTH) {
                        throw new JsonParseException(p, "a stack deeper than " + MAX_DEPTH + " frames");
                    }
                }
                framesHeld += depth;
                if (framesHeld > MAX_FRAMES) {
                    throw new JsonParseException(p, "stacks of more than " + MAX_FRAMES + " frames in all");
                }
                Frame[] list = new Frame[depth];
                int i = 0;
                for (int node = top; node >= 0; node = nodes[3 * node]) {
                    list[i++] = frame(node);
                }
                stack = Arrays.asList(list);
                stacks.put(top, stack);
            }
            return stack;
        }

        private Frame frame(int node) throws IOException {
            if (frames[node] == null) {
                int method = nodes[3 * node + 1];
                int line = nodes[3 * node + 2];
                frames[node] = shared.computeIfAbsent((long) method << 32 | (line & 0xFFFFFFFFL), k -> newFrame(method, line));
                if (frames[node] == null) {
                    throw new JsonParseException(p, "node " + node + " refers to method " + method + " of " + methods.size());
                }
            }
            return frames[node];
        }

        /** The frame of a method at a line; null when the method is not in the table. */
        private Frame newFrame(int method, int line) {
            if (method == -1) { // a method the agent could not index (out of memory)
                return new Frame(null, null, null, line, false);
            }
            if (method < 0 || method >= methods.size()) {
                return null;
            }
            Method m = methods.get(method);
            return m == null ? new Frame(null, null, null, line, false)
                    : new Frame(m.className(), m.method(), m.file(), line, m.nativeMethod(), m.module());
        }
    }

    /** A thread of a {@code stacks} answer: its facts, the top node of its stack in tree, and its lock facts. */
    private ThreadStack threadStack(StackTree tree) throws IOException {
        expect(JsonToken.START_OBJECT);
        ThreadEntry thread = null;
        List<Frame> frames = null;
        boolean truncated = false;
        List<LockedMonitor> locked = null;
        WaitingFor waitingFor = null;
        Integer waitEnteredAt = null;
        boolean unsettled = false;
        boolean waitUnnamed = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "thread" -> thread = threadEntry();
                case "stack" -> {
                    expect(JsonToken.VALUE_NUMBER_INT);
                    frames = tree.stack(p.getIntValue());
                }
                case "truncated" -> truncated = p.getValueAsBoolean(false);
                case "locked" -> locked = locked();
                case "waitingFor" -> waitingFor = waitingFor();
                case "waitEnteredAt" -> waitEnteredAt = p.getValueAsInt(-1);
                case "unsettled" -> unsettled = p.getValueAsBoolean(false);
                case "waitUnnamed" -> waitUnnamed = p.getValueAsBoolean(false);
                default -> p.skipChildren();
            }
        }
        return new ThreadStack(thread, frames, truncated, locked,
                waitingFor == null || waitEnteredAt == null ? waitingFor : waitingFor.enteredAt(waitEnteredAt), unsettled, waitUnnamed);
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
        String osState = null;
        String tid = null;
        Integer osPriority = null;
        Long started = null;
        boolean mountUnsettled = false;
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
                case "osState" -> osState = text();
                case "tid" -> tid = p.getValueAsString();
                case "osPriority" -> osPriority = p.getValueAsInt(0);
                case "started" -> started = p.getValueAsLong(0);
                case "mountUnsettled" -> mountUnsettled = p.getValueAsBoolean(false);
                default -> p.skipChildren();
            }
        }
        return new ThreadEntry(id, name, state, flags, daemon, priority, group, cpuNanos, nid, agent, waitingFor, virtual,
                carrierId, pinned, carrying, osState, tid, osPriority, started, mountUnsettled);
    }

    /** An item of an array, the parser on its first token. */
    private interface ItemReader<T> {
        T read() throws IOException;
    }

    /** The array the parser stands on, each item read by item. */
    private <T> List<T> array(ItemReader<T> item) throws IOException {
        List<T> items = new ArrayList<>();
        expect(JsonToken.START_ARRAY);
        while (p.nextToken() != JsonToken.END_ARRAY) {
            items.add(item.read());
        }
        return items;
    }

    /** The JVM's own threads (see vm_threads.c): each field only where the agent knows it. */
    private List<VmThread> vmThreads() throws IOException {
        return array(this::vmThread);
    }

    private VmThread vmThread() throws IOException {
        expect(JsonToken.START_OBJECT);
        String name = null;
        Boolean javaThread = null;
        Long id = null;
        Boolean daemon = null;
        Integer priority = null;
        String state = null;
        long cpuNanos = -1;
        long nid = 0;
        String osState = null;
        String tid = null;
        Integer osPriority = null;
        Long started = null;
        boolean mountUnsettled = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "name" -> name = p.getValueAsString();
                case "javaThread" -> javaThread = p.getValueAsBoolean(false);
                case "id" -> id = p.getValueAsLong(0);
                case "daemon" -> daemon = p.getValueAsBoolean(false);
                case "priority" -> priority = p.getValueAsInt(0);
                case "state" -> state = text();
                case "cpuNanos" -> cpuNanos = p.getValueAsLong(-1);
                case "nid" -> nid = p.getValueAsLong(0);
                case "osState" -> osState = text();
                case "tid" -> tid = p.getValueAsString();
                case "osPriority" -> osPriority = p.getValueAsInt(0);
                case "started" -> started = p.getValueAsLong(0);
                case "mountUnsettled" -> mountUnsettled = p.getValueAsBoolean(false);
                default -> p.skipChildren();
            }
        }
        return new VmThread(name, javaThread, id, daemon, priority, state, cpuNanos, nid, osState, tid, osPriority, started);
    }

    private Long optionalLong() throws IOException {
        return p.currentToken() == JsonToken.VALUE_NULL ? null : p.getValueAsLong(0);
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
            Frame f = frame();
            list.add(new Method(f.className(), f.method(), f.file(), f.nativeMethod(), f.module()));
        }
        return list;
    }

    /**
     * A frame, {"class","method","file","line","native","module"}, or a method of the frame table,
     * the same without "line" (then -1).
     */
    private Frame frame() throws IOException {
        expect(JsonToken.START_OBJECT);
        String className = null;
        String method = null;
        String file = null;
        int line = -1;
        boolean nativeMethod = false;
        String module = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "class" -> className = text();
                case "method" -> method = text();
                case "file" -> file = text();
                case "line" -> line = p.getValueAsInt(-1);
                case "native" -> nativeMethod = p.getValueAsBoolean(false);
                case "module" -> module = text();
                default -> p.skipChildren();
            }
        }
        return new Frame(className, method, file, line, nativeMethod, module);
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
        boolean ownerUnknown = false;
        Boolean shared = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "kind" -> kind = text();
                case "class" -> className = text();
                case "hash" -> hash = p.getValueAsLong(0);
                case "ownerId" -> ownerId = p.getValueAsLong(0);
                case "ownerUnknown" -> ownerUnknown = p.getValueAsBoolean(false);
                case "shared" -> shared = p.getValueAsBoolean(false);
                default -> p.skipChildren();
            }
        }
        return new WaitingFor(kind, className, hash, ownerId, null, ownerUnknown, shared);
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
            throw new JsonParseException(p, "expected " + token + ", found " + found);
        }
    }
}
