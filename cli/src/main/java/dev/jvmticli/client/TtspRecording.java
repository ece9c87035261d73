package dev.jvmticli.client;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;

/**
 * async-profiler's time-to-safepoint recording (JFR): each window in which the VM thread waited for
 * the threads to stop ({@code profiler.Window}, from its breakpoint in SafepointSynchronize::begin
 * to the one in RuntimeService::record_safepoint_synchronized; its event thread is the VM thread)
 * and the CPU samples taken in them ({@code jdk.ExecutionSample}), in time order. Times are epoch
 * nanoseconds as the recording's clock gives them: windows and samples are on the same clock.
 */
public final class TtspRecording {
    /** A window of waiting for the threads to stop, and the OS thread id of the thread that waited. */
    public record Window(long startNanos, long durationNanos, long osThreadId) {
        public long endNanos() {
            return startNanos + durationNanos;
        }
    }

    /** A thread running in such a window: its name, OS thread id and frames, innermost first. */
    public record Sample(long nanos, long osThreadId, String thread, List<String> frames) {
    }

    public record Recording(List<Window> windows, List<Sample> samples) {
    }

    /** async-profiler's kinds of frame that are not Java methods. */
    private static final Set<String> NATIVE_FRAME_TYPES = Set.of("Native", "C++", "Kernel");

    private TtspRecording() {
    }

    public static Recording read(List<String> pieces) throws IOException {
        List<Window> windows = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        JfrPieces.forEachEvent(pieces, "jvmti-cli-pauses", event -> {
            String type = event.getEventType().getName();
            if (type.equals("profiler.Window")) {
                RecordedThread thread = event.getThread();
                windows.add(new Window(nanos(event.getStartTime()), event.getDuration().toNanos(), thread == null ? -1 : thread.getOSThreadId()));
            } else if (type.equals("jdk.ExecutionSample")) {
                samples.add(sample(event));
            }
        });
        windows.sort(Comparator.comparingLong(Window::startNanos));
        samples.sort(Comparator.comparingLong(Sample::nanos));
        return new Recording(List.copyOf(windows), List.copyOf(samples));
    }

    private static long nanos(Instant at) {
        return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    }

    private static Sample sample(RecordedEvent event) {
        RecordedThread thread = event.getThread("sampledThread");
        String name = thread == null ? null : thread.getJavaName() != null ? thread.getJavaName() : thread.getOSName();
        return new Sample(nanos(event.getStartTime()), thread == null ? -1 : thread.getOSThreadId(), name, frames(event.getStackTrace()));
    }

    /** Java frames as Class.method, native ones as their symbol; innermost first. */
    private static List<String> frames(RecordedStackTrace stack) {
        if (stack == null) {
            return List.of();
        }
        List<String> frames = new ArrayList<>();
        for (RecordedFrame frame : stack.getFrames()) {
            String method = frame.getMethod().getName();
            frames.add(NATIVE_FRAME_TYPES.contains(frame.getType()) ? method : frame.getMethod().getType().getName() + "." + method);
        }
        return List.copyOf(frames);
    }
}
