package dev.jvmticli.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;

/**
 * async-profiler's nativemem recording (JFR, {@code profiler.Malloc} and {@code profiler.Free}
 * events) read into calls in time order.
 */
public final class NativeRecording {
    /** One allocation (size above 0) or free (size 0) as async-profiler saw it; frames innermost first, its hook left out. */
    public record Call(long nanos, boolean free, long address, long size, long osThreadId, String thread, List<Frame> frames) {
    }

    /** A Java frame as Class.method:line, a native one as symbol (library). */
    public record Frame(String text, boolean java) {
    }

    /** async-profiler's kinds of frame that are not Java methods: the rest are interpreted or compiled Java. */
    private static final Set<String> NATIVE_FRAME_TYPES = Set.of("Native", "C++", "Kernel");

    private NativeRecording() {
    }

    public static List<Call> read(List<String> pieces) throws IOException {
        List<Call> calls = new ArrayList<>();
        JfrPieces.forEachEvent(pieces, "jvmti-cli-nativemem", event -> {
            String type = event.getEventType().getName();
            if (type.equals("profiler.Malloc") || type.equals("profiler.Free")) {
                calls.add(call(event, type.equals("profiler.Free")));
            }
        });
        calls.sort(Comparator.comparingLong(Call::nanos));
        return calls;
    }

    private static Call call(RecordedEvent event, boolean free) {
        long nanos = event.getStartTime().getEpochSecond() * 1_000_000_000L + event.getStartTime().getNano();
        RecordedThread thread = event.getThread();
        long tid = thread == null ? -1 : thread.getOSThreadId();
        String name = thread == null ? null : thread.getOSName();
        long size = free ? 0 : event.getLong("size");
        return new Call(nanos, free, event.getLong("address"), size, tid, name, free ? List.of() : frames(event.getStackTrace()));
    }

    /** Java frames as Class.method:line, native ones as symbol (library); async-profiler's hook, innermost, left out. */
    private static List<Frame> frames(RecordedStackTrace stack) {
        if (stack == null) {
            return List.of();
        }
        List<Frame> frames = new ArrayList<>();
        for (RecordedFrame frame : stack.getFrames()) {
            String type = frame.getMethod().getType().getName();
            String method = frame.getMethod().getName();
            if (!NATIVE_FRAME_TYPES.contains(frame.getType())) {
                frames.add(new Frame(type + "." + method + (frame.getLineNumber() > 0 ? ":" + frame.getLineNumber() : ""), true));
            } else if (!(frames.isEmpty() && method.endsWith("_hook") && type.startsWith("libasyncProfiler"))) {
                frames.add(new Frame(method + (type.isEmpty() ? "" : " (" + type + ")"), false));
            }
        }
        return List.copyOf(frames);
    }
}
