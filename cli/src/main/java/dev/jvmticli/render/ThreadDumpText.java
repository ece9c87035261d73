package dev.jvmticli.render;

import dev.jvmticli.analysis.OwnableSynchronizers;
import dev.jvmticli.analysis.StackGroups;
import dev.jvmticli.client.Frame;
import dev.jvmticli.client.Hello;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.VmThread;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Thread dumps in jstack's text format, as the target's JDK prints it, so that the thread-dump
 * analyzers people already use can read them: the timestamp and {@code Full thread dump} preamble,
 * a header line (the layout of the target's JDK: {@code #id [nid]} and a decimal nid from JDK 19 on)
 * and a {@code java.lang.Thread.State} line per thread, {@code \tat} frames with their module, and
 * lock lines under the frame they belong to. What has no source is left out rather than invented:
 * the last Java stack pointer ({@code [0x...]} at the end of jstack's header), and any header field
 * the agent could not read. Nothing is added to jstack's lines either (readers such as Dumpling
 * reject a dump with a line they do not know under a frame): who owns what a thread waits for is
 * in the JSON ({@code waitingFor.ownerId}), {@code monitors} and the deadlock section.
 */
public final class ThreadDumpText {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

    private static final int GROUP_NAMES = 10;

    private static final String NEWLINE = System.lineSeparator();

    /** jstack's words for a monitor it cannot name. */
    static final String NO_REFERENCE = "<no object reference available>";

    /** Said of a thread whose lock facts never settled (see ThreadStack.unsettled), in place of its lock lines. */
    static final String UNSETTLED = "   Lock lines left out: the thread kept moving while they were read";

    /** A virtual thread that mounted or unmounted while it was read: its frames may be of either side. */
    static final String MOUNT_UNSETTLED = "   Carrier not known: it mounted or unmounted while it was read";

    /** A carrier whose frames show a virtual thread mounted that the walk of the virtual threads did not find on it. */
    static final String CARRYING_UNKNOWN = "   Carrying a virtual thread: which one is not known (it mounted after the virtual threads were read)";

    private ThreadDumpText() {
    }

    /**
     * The threads shown (of the dump, whose other threads still name owners); with synchronizers
     * (null for none), each thread's "Locked ownable synchronizers" too.
     */
    public static void print(PrintWriter out, StackDump dump, List<ThreadStack> shown, Hello.Jvm jvm,
                             OwnableSynchronizers synchronizers) {
        Printer printer = new Printer(out, jvm, dump.time(), dump.vmThreads(), byId(dump), synchronizers);
        shown.forEach(printer::thread);
        printer.finish();
    }

    /**
     * A dump printed thread by thread, as its threads arrive: the preamble first, each thread in
     * turn, the JVM's own threads jstack lists as Java threads among them (each before the first
     * thread with a larger id: ids follow the order threads started in), then the other JVM
     * threads at the end; with synchronizers (null for none), each Java thread's "Locked ownable
     * synchronizers" too. Not for concurrent use.
     */
    public static final class Printer {
        private static final int WRITE_AT = 64 * 1024;
        private final PrintWriter out;
        private final Map<Long, ThreadEntry> byId;
        private final OwnableSynchronizers synchronizers;
        private final Layout layout;
        private final List<VmThread> vmThreads;
        private final List<ThreadStack> hidden;
        private final FrameText frameText = new FrameText();
        private final StateLines stateLines = new StateLines();
        /** Threads' lines not written yet: written out in pieces of at least WRITE_AT bytes, which a buffer of that size passes on without copying. */
        private final Utf8Lines text = new Utf8Lines();
        private int nextHidden;

        /** byId: the dump's threads by id, which name a carrier and the virtual thread it carries. */
        public Printer(PrintWriter out, Hello.Jvm jvm, long time, List<VmThread> vmThreads, Map<Long, ThreadEntry> byId,
                       OwnableSynchronizers synchronizers) {
            this.out = out;
            this.byId = byId;
            this.synchronizers = synchronizers;
            this.layout = Layout.of(jvm, time);
            this.vmThreads = vmThreads == null ? List.of() : vmThreads;
            this.hidden = this.vmThreads.stream().filter(ThreadDumpText::hasJavaThread)
                    .sorted(Comparator.comparingLong(VmThread::id))
                    .map(t -> new ThreadStack(asJavaThread(t), List.of(), false, List.of(), null)).toList();
            printPreamble(out, time, jvm);
        }

        public void thread(ThreadStack t) {
            while (nextHidden < hidden.size() && hidden.get(nextHidden).thread().id() < t.thread().id()) {
                print(hidden.get(nextHidden++));
            }
            print(t);
        }

        private void print(ThreadStack t) {
            printThread(text, t, byId, frameText, stateLines, layout);
            if (synchronizers != null) {
                text.writeTo(out);
                printSynchronizers(out, synchronizers, t.thread().id());
            }
            text.line();
            if (text.length >= WRITE_AT) {
                text.writeTo(out);
            }
        }

        /** The hidden Java threads not printed yet and the JVM's other threads. */
        public void finish() {
            while (nextHidden < hidden.size()) {
                print(hidden.get(nextHidden++));
            }
            text.writeTo(out);
            for (VmThread t : vmThreads) {
                if (!hasJavaThread(t)) {
                    out.println(header(t, layout));
                    out.println();
                }
            }
            out.flush();
        }
    }

    /** A JVM thread whose java.lang.Thread facts are known: jstack prints it as a Java thread. */
    private static boolean hasJavaThread(VmThread t) {
        return Boolean.TRUE.equals(t.javaThread()) && t.id() != null && t.state() != null;
    }

    private static ThreadEntry asJavaThread(VmThread t) {
        return new ThreadEntry(t.id(), t.name(), t.state(), List.of(), Boolean.TRUE.equals(t.daemon()), t.priority(), null, t.cpuNanos(),
                t.nid(), false, null, false, null, false, null, t.osState(), t.tid(), t.osPriority(), t.started(), false);
    }

    /** Threads with identical stacks printed once, headed by how many and which (the first few of many). */
    public static void printGroups(PrintWriter out, StackDump dump, List<ThreadStack> shown, Hello.Jvm jvm) {
        printPreamble(out, dump, jvm);
        for (StackGroups.Group group : StackGroups.of(shown)) {
            String names = group.threads().stream().limit(GROUP_NAMES).map(t -> quote(t.name()) + " #" + t.id()
                    + (t.virtual() ? " virtual" : "")).collect(Collectors.joining(", "));
            if (group.count() > GROUP_NAMES) {
                names += ", and " + (group.count() - GROUP_NAMES) + " more";
            }
            out.println(group.count() + (group.count() == 1 ? " thread: " : " threads: ") + names);
            out.println("   java.lang.Thread.State: " + group.state());
            for (Frame frame : group.frames()) {
                out.println(frameLine(frame));
            }
            out.println();
        }
        out.flush();
    }

    public static void printPreamble(PrintWriter out, StackDump dump, Hello.Jvm jvm) {
        printPreamble(out, dump.time(), jvm);
    }

    private static void printPreamble(PrintWriter out, long time, Hello.Jvm jvm) {
        out.println(TIMESTAMP.format(Instant.ofEpochMilli(time).atZone(ZoneId.systemDefault())));
        String info = jvm.info() == null ? "" : " " + jvm.info();
        out.println(Printable.text("Full thread dump " + jvm.name() + " (" + jvm.version() + info + "):"));
        out.println();
    }

    /**
     * How the target's jstack lays out a header: from JDK 19 on {@code "name" #id [nid] ... nid=N},
     * before {@code "name" #id ... nid=0xN}; elapsed is counted up to the dump's time.
     */
    record Layout(boolean nidAfterId, long dumpTime) {
        static Layout of(Hello.Jvm jvm, long dumpTime) {
            return new Layout(feature(jvm) >= 19, dumpTime);
        }

        private static int feature(Hello.Jvm jvm) {
            String spec = jvm == null || jvm.specVersion() == null ? "" : jvm.specVersion();
            try {
                return Integer.parseInt(spec.startsWith("1.") ? spec.substring(2) : spec);
            } catch (NumberFormatException e) {
                return 0;
            }
        }
    }

    /**
     * One thread: header, state line, frames with their lock lines, as UTF-8 (a large dump has
     * hundreds of thousands of frame lines, each encoded once per distinct frame).
     */
    private static void printThread(Utf8Lines b, ThreadStack t, Map<Long, ThreadEntry> byId, FrameText frameText,
                                    StateLines stateLines, Layout layout) {
        ThreadEntry thread = t.thread();
        appendHeader(b, thread, layout);
        b.line();
        b.line(stateLines.of(thread));
        if (t.unsettled()) {
            b.line(UNSETTLED);
        }
        if (thread.carrierId() != null) {
            ThreadEntry carrier = byId.get(thread.carrierId());
            b.line("   Mounted on carrier " + (carrier == null ? "" : quote(carrier.name()) + " ") + "#" + thread.carrierId());
        }
        if (thread.carrying() != null) {
            ThreadEntry carried = byId.get(thread.carrying());
            b.line("   Carrying virtual thread " + (carried == null ? "" : quote(carried.name()) + " ") + "#" + thread.carrying());
        } else if (thread.mountUnsettled()) {
            b.line(thread.virtual() ? MOUNT_UNSETTLED : CARRYING_UNKNOWN);
        }
        appendFrames(b, t, frameText);
    }

    /**
     * The {@code java.lang.Thread.State} line of each state and detail met, encoded once: a dump
     * of thousands of threads has a handful of them.
     */
    private static final class StateLines {
        /** detail: one of detail()'s constants, or null. */
        private record StateLine(String state, String detail, byte[] line) {
        }

        private final List<StateLine> made = new ArrayList<>();

        byte[] of(ThreadEntry t) {
            String detail = detail(t);
            for (StateLine known : made) {
                if (known.detail() == detail && t.state().equals(known.state())) {
                    return known.line();
                }
            }
            byte[] line = ("   java.lang.Thread.State: " + stateDetail(t.state(), detail)).getBytes(StandardCharsets.UTF_8);
            made.add(new StateLine(t.state(), detail, line));
            return line;
        }
    }

    /** A thread's frames and lock lines alone, as jstack's deadlock section lists them. */
    public static void printFrames(PrintWriter out, ThreadStack t) {
        Utf8Lines b = new Utf8Lines();
        appendFrames(b, t, new FrameText());
        b.writeTo(out);
    }

    /**
     * The frame lines of a dump's stacks, each stack's made once for all the threads that have it
     * (the answer gives those threads one list, see AnswerReader): a dump of 2,000 threads 100 deep
     * is 200,000 frame lines, of a few thousand distinct frames and far fewer distinct stacks.
     */
    private static final class FrameText {
        /** Past this many bytes of stacks kept, a stack's lines are made for each thread again: memory stays bounded when few are shared. */
        private static final long KEPT_BYTES = 16 << 20;

        private final Map<Frame, byte[]> lines = new IdentityHashMap<>();
        private final Map<List<Frame>, Block> blocks = new IdentityHashMap<>();
        private final Utf8Lines scratch = new Utf8Lines();
        private long kept;

        /** A stack's lines, each ended, one after the other; the line of frame i ends at ends[i]. */
        private record Block(byte[] bytes, int[] ends) {
            int start(int depth) {
                return depth == 0 ? 0 : ends[depth - 1];
            }
        }

        Block of(List<Frame> frames) {
            Block block = blocks.get(frames);
            if (block == null) {
                scratch.length = 0;
                int[] ends = new int[frames.size()];
                for (int depth = 0; depth < ends.length; depth++) {
                    scratch.line(lines.computeIfAbsent(frames.get(depth), f -> frameLine(f).getBytes(StandardCharsets.UTF_8)));
                    ends[depth] = scratch.length;
                }
                block = new Block(Arrays.copyOf(scratch.bytes, scratch.length), ends);
                if (kept + scratch.length <= KEPT_BYTES) {
                    blocks.put(frames, block);
                    kept += scratch.length;
                }
            }
            return block;
        }
    }

    /**
     * Under each frame, the lock lines it has in jstack: the top frame's wait, then the monitors
     * the frame entered, the one a thread in Object.wait takes back when woken included.
     */
    private static void appendFrames(Utf8Lines b, ThreadStack t, FrameText frameText) {
        List<Frame> frames = t.frames();
        WaitingFor wait = t.waitingFor();
        String unnamedWait = wait == null && !t.unsettled() && !frames.isEmpty() ? unnamedWait(t.thread(), frames.get(0)) : null;
        Integer waitEnteredAt = wait == null ? null : wait.enteredAt();
        List<LockedMonitor> locked = t.locked();
        FrameText.Block block = frameText.of(frames);
        int written = 0; // frames whose lines are in b
        for (int depth : lockLineDepths(frames.size(), wait != null || unnamedWait != null, wait, locked)) {
            b.append(block.bytes(), block.start(written), block.ends()[depth] - block.start(written));
            written = depth + 1;
            if (depth == 0 && wait != null) {
                appendWait(b, wait);
            } else if (depth == 0 && unnamedWait != null) {
                b.line(unnamedWait);
            }
            if (waitEnteredAt != null && waitEnteredAt == depth) {
                appendLock(b.append(LOCKED), wait.className(), wait.hash());
                b.line();
            }
            for (LockedMonitor monitor : locked) {
                if (monitor.depth() == depth) {
                    appendLock(b.append(LOCKED), monitor.className(), monitor.hash());
                    b.line();
                }
            }
        }
        b.append(block.bytes(), block.start(written), block.bytes().length - block.start(written));
        if (frames.isEmpty() && wait != null) {
            appendWait(b, wait);
        }
        for (LockedMonitor monitor : locked) {
            if (monitor.depth() < 0 || monitor.depth() >= frames.size()) {
                b.line("\t- locked " + describe(monitor.lock()) + (monitor.depth() < 0 ? " by JNI" : ""));
            }
        }
        if (t.truncated()) {
            b.line("\t...");
        }
    }

    /**
     * jstack's line for a thread blocked on, or waiting on, a monitor its facts do not name (JDK 25's
     * thread snapshot names none for a thread in a compiled Object.wait0), or null when it is not one.
     * Its facts were read in this state (a thread that moved on is unsettled), so nothing else is known.
     */
    private static String unnamedWait(ThreadEntry thread, Frame top) {
        boolean inWait = top.className().equals("java.lang.Object") && (top.method().equals("wait") || top.method().equals("wait0"));
        if (thread.state().equals("BLOCKED")) {
            return (inWait ? "\t- waiting to re-lock in wait() " : "\t- waiting to lock ") + NO_REFERENCE;
        }
        return thread.hasFlag("in_object_wait") ? "\t- waiting on " + NO_REFERENCE : null;
    }

    /** The depths, in order, of the frames of a stack of that many that have lock lines under them. */
    private static int[] lockLineDepths(int frames, boolean waitLine, WaitingFor wait, List<LockedMonitor> locked) {
        int[] depths = new int[locked.size() + 2];
        int n = 0;
        if (waitLine && frames > 0) {
            depths[n++] = 0;
        }
        if (wait != null && frames > 0) {
            if (wait.enteredAt() != null && wait.enteredAt() >= 0 && wait.enteredAt() < frames) {
                depths[n++] = wait.enteredAt();
            }
        }
        for (LockedMonitor monitor : locked) {
            if (monitor.depth() >= 0 && monitor.depth() < frames) {
                depths[n++] = monitor.depth();
            }
        }
        Arrays.sort(depths, 0, n);
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            if (distinct == 0 || depths[distinct - 1] != depths[i]) {
                depths[distinct++] = depths[i];
            }
        }
        return Arrays.copyOf(depths, distinct);
    }

    /** Lines of text as UTF-8 in one reused buffer, handed to a writer as bytes where it takes them. */
    private static final class Utf8Lines {
        private static final byte[] NEWLINE_BYTES = NEWLINE.getBytes(StandardCharsets.UTF_8);
        private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

        private byte[] bytes = new byte[16 * 1024];
        private int length;

        void line(String text) {
            line(text.getBytes(StandardCharsets.UTF_8));
        }

        void line(byte[] text) {
            append(text);
            line();
        }

        void line() {
            append(NEWLINE_BYTES);
        }

        /** text as string concatenation has it ("null" for null). */
        Utf8Lines append(String text) {
            return append(String.valueOf(text).getBytes(StandardCharsets.UTF_8));
        }

        Utf8Lines append(byte[] text) {
            append(text, 0, text.length);
            return this;
        }

        void append(byte[] text, int offset, int count) {
            room(count);
            System.arraycopy(text, offset, bytes, length, count);
            length += count;
        }

        /** An ASCII character. */
        Utf8Lines append(char c) {
            room(1);
            bytes[length++] = (byte) c;
            return this;
        }

        /** What Long.toString writes, without the String. */
        Utf8Lines decimal(long value) {
            if (value == Long.MIN_VALUE) {
                return append(Long.toString(value));
            }
            if (value < 0) {
                append('-');
                value = -value;
            }
            int digits = 1;
            for (long rest = value; rest >= 10; rest /= 10) {
                digits++;
            }
            room(digits);
            for (int i = length + digits - 1; i >= length; i--) {
                bytes[i] = (byte) ('0' + value % 10);
                value /= 10;
            }
            length += digits;
            return this;
        }

        /** What Long.toHexString writes, or with width, that many low hex digits, zeros in front. */
        Utf8Lines hex(long value, int width) {
            int digits = width > 0 ? width : Math.max(1, (64 - Long.numberOfLeadingZeros(value) + 3) / 4);
            room(digits);
            for (int i = length + digits - 1; i >= length; i--) {
                bytes[i] = HEX_DIGITS[(int) (value & 0xF)];
                value >>>= 4;
            }
            length += digits;
            return this;
        }

        /**
         * value / unit with two decimals, rounded half up: what {@code String.format("%.2f", value / (double) unit)}
         * prints for a value of at most 15 digits and a unit that is a power of ten of at least 100,
         * without Formatter's cost on each of thousands of header lines.
         */
        Utf8Lines hundredths(long value, long unit) {
            long hundredths = (value + unit / 200) / (unit / 100);
            long fraction = hundredths % 100;
            return decimal(hundredths / 100).append('.').append((char) ('0' + fraction / 10)).append((char) ('0' + fraction % 10));
        }

        private void room(int count) {
            if (length + count > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, length + count));
            }
        }

        /** Writes what was added since the last call. */
        void writeTo(PrintWriter out) {
            if (out instanceof TextOutput utf8) {
                utf8.writeUtf8(bytes, 0, length);
            } else {
                out.write(toString());
            }
            length = 0;
        }

        @Override
        public String toString() {
            return new String(bytes, 0, length, StandardCharsets.UTF_8);
        }
    }

    private static final byte[] WAITING_TO_LOCK = "\t- waiting to lock ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WAITING_ON = "\t- waiting on ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARKING = "\t- parking to wait for  ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LOCKED = "\t- locked ".getBytes(StandardCharsets.US_ASCII);

    private static void appendWait(Utf8Lines b, WaitingFor wait) {
        byte[] line = switch (wait.kind()) {
            case "enter" -> WAITING_TO_LOCK;
            case "notify" -> WAITING_ON;
            default -> PARKING;
        };
        appendLock(b.append(line), wait.className(), wait.hash());
        b.line();
    }

    /** {@link #describe}, written into b. */
    private static void appendLock(Utf8Lines b, String className, long hash) {
        b.append(ADDRESS_START).hex(hash, 16).append(ADDRESS_END).append(Printable.text(className)).append(')');
    }

    private static final byte[] ADDRESS_START = "<0x".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ADDRESS_END = "> (a ".getBytes(StandardCharsets.US_ASCII);

    /**
     * jstack's section; "- None" only when the list is complete. A partial one ends with a line no
     * reader takes for a synchronizer: {@code - (others not known: why)}; one not known at all is
     * that line alone.
     */
    private static void printSynchronizers(PrintWriter out, OwnableSynchronizers synchronizers, long threadId) {
        List<LockRef> owned = synchronizers.of(threadId);
        out.println();
        out.println("   Locked ownable synchronizers:");
        String notKnown = synchronizers.notKnownWhy(threadId);
        if (notKnown != null) {
            out.println("\t- (not known: " + notKnown + ")");
            return;
        }
        for (LockRef lock : owned) {
            out.println("\t- " + describe(lock));
        }
        if (!synchronizers.complete()) {
            out.println("\t- (" + (owned.isEmpty() ? "not known" : "others not known") + ": " + synchronizers.partialBecause() + ")");
        } else if (owned.isEmpty()) {
            out.println("\t- None");
        }
    }

    public static Map<Long, ThreadEntry> byId(StackDump dump) {
        return dump.threads().stream().collect(Collectors.toMap(t -> t.thread().id(), ThreadStack::thread, (a, b) -> a));
    }

    /** {@code <0x...> (a pkg.Class)} */
    public static String describe(LockRef lock) {
        return lock.address() + " (a " + Printable.text(lock.className()) + ")";
    }

    /** A name in quotes, printable. */
    public static String quote(String name) {
        return "\"" + Printable.text(name) + "\"";
    }

    /** jstack's header line: each field where the agent knows it, in the order and form of the target's JDK. */
    static String header(ThreadEntry t, Layout layout) {
        Utf8Lines line = new Utf8Lines();
        appendHeader(line, t, layout);
        return line.toString();
    }

    private static void appendHeader(Utf8Lines line, ThreadEntry t, Layout layout) {
        line.append('"').append(Printable.text(t.name())).append('"').append(HASH).decimal(t.id());
        if (layout.nidAfterId() && t.nid() > 0) {
            line.append(' ').append('[').decimal(t.nid()).append(']');
        }
        if (t.virtual()) {
            line.append(t.pinned() ? VIRTUAL_PINNED : VIRTUAL);
        } else if (t.daemon()) {
            line.append(DAEMON);
        }
        line.append(PRIO).decimal(t.priority());
        appendOsThread(line, t.osPriority(), t.cpuNanos(), t.started(), t.tid(), t.nid(), layout);
        line.append(' ').append(t.osState() != null ? t.osState() : stateText(t));
        if (t.agent()) {
            line.append(AGENT);
        }
    }

    private static final byte[] HASH = " #".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VIRTUAL = " virtual".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VIRTUAL_PINNED = " virtual pinned".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DAEMON = " daemon".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PRIO = " prio=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AGENT = " (jvmti-cli agent)".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OS_PRIO = " os_prio=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CPU = " cpu=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ELAPSED = " elapsed=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TID = " tid=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NID = " nid=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NID_HEX = " nid=0x".getBytes(StandardCharsets.US_ASCII);

    /** value / unit with two decimals, as a header has its cpu and elapsed (see Utf8Lines.hundredths). */
    static String hundredths(long value, long unit) {
        return new Utf8Lines().hundredths(value, unit).toString();
    }

    /** jstack's header line of a JVM thread without a java.lang.Thread: name and OS thread. */
    static String header(VmThread t, Layout layout) {
        Utf8Lines line = new Utf8Lines();
        line.append('"').append(Printable.text(t.name())).append('"');
        appendOsThread(line, t.osPriority(), t.cpuNanos(), t.started(), t.tid(), t.nid(), layout);
        if (t.osState() != null) {
            line.append(' ').append(t.osState());
        }
        return line.toString();
    }

    /** What HotSpot's Thread::print_on says of the OS thread, each field where it is known. */
    private static void appendOsThread(Utf8Lines line, Integer osPriority, long cpuNanos, Long started, String tid, long nid,
                                       Layout layout) {
        if (osPriority != null) {
            line.append(OS_PRIO).decimal(osPriority);
        }
        if (cpuNanos >= 0) {
            line.append(CPU).hundredths(cpuNanos, 1_000_000).append('m').append('s');
        }
        if (started != null && layout.dumpTime() >= started) {
            line.append(ELAPSED).hundredths(layout.dumpTime() - started, 1_000).append('s');
        }
        if (tid != null) {
            line.append(TID).append(tid);
        }
        if (nid > 0) {
            if (layout.nidAfterId()) {
                line.append(NID).decimal(nid);
            } else {
                line.append(NID_HEX).hex(nid, 0);
            }
        }
    }

    /** jstack's words for the OS thread's state, guessed from the Java state where HotSpot's record is not known. */
    static String stateText(ThreadEntry t) {
        return switch (t.state()) {
            case "RUNNABLE" -> "runnable";
            case "BLOCKED" -> "waiting for monitor entry";
            case "WAITING", "TIMED_WAITING" -> t.hasFlag("in_object_wait") ? "in Object.wait()" : "waiting on condition";
            default -> t.state().toLowerCase(Locale.ROOT);
        };
    }

    static String stateDetail(ThreadEntry t) {
        return stateDetail(t.state(), detail(t));
    }

    private static String stateDetail(String state, String detail) {
        return detail == null ? state : state + " (" + detail + ")";
    }

    /** What jstack adds to the state in parentheses, or null. */
    private static String detail(ThreadEntry t) {
        return switch (t.state()) {
            case "BLOCKED" -> "on object monitor";
            case "WAITING", "TIMED_WAITING" -> t.hasFlag("in_object_wait") ? "on object monitor"
                    : t.hasFlag("parked") ? "parking"
                    : t.hasFlag("sleeping") ? "sleeping" : null;
            default -> null;
        };
    }

    static String frameLine(Frame f) {
        return appendFrame(new StringBuilder(80), f).toString();
    }

    /**
     * {@code \tat pkg.Class.method(module@version/File.java:12)}, as HotSpot writes it: the module
     * only when named, its version when it has one; every name printable.
     */
    private static StringBuilder appendFrame(StringBuilder b, Frame f) {
        b.append("\tat ").append(Printable.text(f.className())).append('.').append(Printable.text(f.method())).append('(');
        if (f.module() != null) {
            b.append(Printable.text(f.module())).append('/');
        }
        if (f.nativeMethod()) {
            b.append("Native Method");
        } else if (f.file() == null) {
            b.append("Unknown Source");
        } else if (f.line() >= 0) {
            b.append(Printable.text(f.file())).append(':').append(f.line());
        } else {
            b.append(Printable.text(f.file()));
        }
        return b.append(')');
    }
}
