package dev.jvmticli.client;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * async-profiler's nativemem recording (JFR, {@code profiler.Malloc} and {@code profiler.Free}
 * events) read into calls in time order. The JDK reads JFR only from a file, so the pieces are
 * written to a file of the CLI's own (0600, in a directory only its user can enter), deleted once
 * read.
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
        Path directory = Files.createTempDirectory("jvmti-cli-nativemem", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path file = directory.resolve("recording.jfr");
        try {
            try (OutputStream out = Files.newOutputStream(file)) {
                Base64.Decoder decoder = Base64.getDecoder();
                for (String piece : pieces) {
                    out.write(decoder.decode(piece));
                }
            }
            List<Call> calls = new ArrayList<>();
            try (RecordingFile recording = new RecordingFile(file)) {
                while (recording.hasMoreEvents()) {
                    RecordedEvent event = recording.readEvent();
                    String type = event.getEventType().getName();
                    if (type.equals("profiler.Malloc") || type.equals("profiler.Free")) {
                        calls.add(call(event, type.equals("profiler.Free")));
                    }
                }
            }
            calls.sort(Comparator.comparingLong(Call::nanos));
            return calls;
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(directory);
        }
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
