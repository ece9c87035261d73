package dev.jvmticli.analysis;

import dev.jvmticli.client.NativeRecording.Call;
import dev.jvmticli.client.NativeRecording.Frame;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The window's allocations matched with its frees by address, in time order: what each site
 * allocated, how much of it was freed before the window ended, and what was not. A site is the
 * innermost Java frame of the stack that is not the JDK's (else the innermost Java frame), with
 * the native function that called the allocator ({@code via}: the first frame past the JVM's own
 * wrappers of malloc). Calls of the tool's own (the agent's thread, async-profiler's work) are
 * counted apart and left out.
 */
public final class NativeAllocations {
    /** HotSpot's wrappers around the C allocator: the JVM's own callers are the frames past them. */
    private static final Set<String> JVM_ALLOCATOR_WRAPPERS = Set.of("os::malloc", "os::realloc", "os::calloc",
            "AllocateHeap", "ReallocateHeap", "AllocateHeap(unsigned long, MEMFLAGS, AllocFailStrategy::AllocFailEnum)");

    public record Site(String site, String via, long allocatedBytes, long allocations, long freedBytes, long frees,
                       long heldBytes, long held, List<String> stack) {
    }

    public record Totals(long allocatedBytes, long allocations, long freedBytes, long frees, long heldBytes, long held,
                         long earlierFrees, long ownBytes, long ownAllocations) {
    }

    public record Result(Totals totals, List<Site> sites) {
    }

    private static final java.util.regex.Pattern PROFILER_LIBRARY = java.util.regex.Pattern.compile("\\(libasyncProfiler(-[0-9a-f]+)?\\.so\\)$");

    private NativeAllocations() {
    }

    /**
     * calls in time order; ownTids the OS thread ids of the agent's threads; jdkClass whether a class name
     * belongs to the JDK (its package is one of the JDK's modules').
     */
    public static Result of(List<Call> calls, java.util.Set<Long> ownTids, Predicate<String> jdkClass) {
        Map<Long, Live> live = new HashMap<>();
        Map<String, Tally> sites = new LinkedHashMap<>();
        long earlierFrees = 0;
        long ownBytes = 0;
        long ownAllocations = 0;
        for (Call call : calls) {
            if (call.free()) {
                Live freed = live.remove(call.address());
                if (freed == null) {
                    earlierFrees++;
                } else {
                    freed.tally.freedBytes += freed.size;
                    freed.tally.frees++;
                }
                continue;
            }
            if (ownTids.contains(call.osThreadId()) || ownWork(call.frames())) {
                ownBytes += call.size();
                ownAllocations++;
                // a free of it is the tool's too: matched here, counted nowhere
                live.put(call.address(), new Live(call.size(), new Tally(null, null, List.of())));
                continue;
            }
            String site = site(call.frames(), jdkClass);
            String via = via(call.frames());
            Tally tally = sites.computeIfAbsent(site + "\u0000" + via, k -> new Tally(site, via, texts(call.frames())));
            tally.allocatedBytes += call.size();
            tally.allocations++;
            Live replaced = live.put(call.address(), new Live(call.size(), tally));
            if (replaced != null) {
                // an address given out again without a free seen: the free went by a path async-profiler does not hook
                replaced.tally.freedBytes += replaced.size;
                replaced.tally.frees++;
            }
        }
        List<Site> result = new ArrayList<>();
        long[] sum = new long[6];
        for (Tally t : sites.values()) {
            Site s = new Site(t.site, t.via, t.allocatedBytes, t.allocations, t.freedBytes, t.frees,
                    t.allocatedBytes - t.freedBytes, t.allocations - t.frees, t.stack);
            result.add(s);
            sum[0] += s.allocatedBytes();
            sum[1] += s.allocations();
            sum[2] += s.freedBytes();
            sum[3] += s.frees();
        }
        result.sort(Comparator.comparingLong(Site::heldBytes).reversed().thenComparing(Comparator.comparingLong(Site::allocatedBytes).reversed()));
        Totals totals = new Totals(sum[0], sum[1], sum[2], sum[3], sum[0] - sum[2], sum[1] - sum[3], earlierFrees, ownBytes, ownAllocations);
        return new Result(totals, List.copyOf(result));
    }

    /** async-profiler's own allocations: its library on the stack past its hook (loaded under its name, or with its hash in it). */
    private static boolean ownWork(List<Frame> frames) {
        return frames.stream().anyMatch(f -> !f.java() && PROFILER_LIBRARY.matcher(f.text()).find());
    }

    private static String site(List<Frame> frames, Predicate<String> jdkClass) {
        String innermostJava = null;
        for (Frame frame : frames) {
            if (frame.java()) {
                if (!jdkClass.test(className(frame.text()))) {
                    return frame.text();
                }
                if (innermostJava == null) {
                    innermostJava = frame.text();
                }
            }
        }
        return innermostJava != null ? innermostJava : "(no Java frame)";
    }

    private static String via(List<Frame> frames) {
        for (Frame frame : frames) {
            if (frame.java()) {
                break;
            }
            String symbol = frame.text().replaceFirst(" \\([^()]*\\)$", "");
            if (!JVM_ALLOCATOR_WRAPPERS.contains(symbol)) {
                return frame.text();
            }
        }
        return frames.isEmpty() ? "(no stack)" : frames.get(0).text();
    }

    private static String className(String javaFrame) {
        String method = javaFrame.replaceFirst(":\\d+$", "");
        int dot = method.lastIndexOf('.');
        return dot < 0 ? method : method.substring(0, dot);
    }

    private static List<String> texts(List<Frame> frames) {
        return frames.stream().map(Frame::text).toList();
    }

    private static final class Tally {
        final String site;
        final String via;
        final List<String> stack;
        long allocatedBytes;
        long allocations;
        long freedBytes;
        long frees;

        Tally(String site, String via, List<String> stack) {
            this.site = site;
            this.via = via;
            this.stack = stack;
        }
    }

    private record Live(long size, Tally tally) {
    }
}
