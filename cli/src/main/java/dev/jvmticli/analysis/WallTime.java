package dev.jvmticli.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What each thread did over a wall-clock profile. Wall-clock sampling takes every thread at the same
 * rate whether it runs or waits, so a thread's share of the samples says how long it lived, not what
 * it did. Each sample is read instead as running or waiting, by the engine's own rule made from
 * the stack: async-profiler counts a thread as sleeping when the signal found it in a system call,
 * so a sample whose innermost frame is a blocking system call's wrapper (futex, poll, epoll_wait,
 * nanosleep, read, accept, ...) is waiting, any other running. Where it waits is the innermost frame
 * of the application (a Java frame outside java., jdk., sun.; else the innermost Java frame; for
 * the JVM's own threads, the innermost native frame that is not a locking or sleeping primitive).
 */
public final class WallTime {
    public enum State {
        RUNNING, WAITING;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A thread's samples: how many running and waiting, and what it did most (state and where); java
     * when some of its samples have Java frames (the JVM's own threads have none).
     */
    public record ThreadTime(String name, long tid, long samples, long running, long waiting, State mostlyState, String mostlyWhere,
                             long mostlySamples, boolean java) {
    }

    /** A place where threads waited: samples and how many threads; java when the place is a Java frame. */
    public record Wait(String where, long samples, int threads, boolean java) {
    }

    /** The C library's blocking system call wrappers, with glibc's prefixes and version suffixes taken off. */
    private static final Set<String> BLOCKING_CALLS = Set.of("poll", "ppoll", "epoll_wait", "epoll_pwait", "select", "pselect", "pselect6",
            "nanosleep", "clock_nanosleep", "read", "readv", "pread", "pread64", "recv", "recvfrom", "recvmsg", "accept", "accept4",
            "connect", "sigwait", "sigtimedwait", "sigwaitinfo", "pause", "waitpid", "wait4", "syscall", "sem_wait", "sem_timedwait",
            "lll_lock_wait", "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "pthread_join", "msgrcv",
            "semop", "semtimedop", "flock", "fsync", "fdatasync");
    private static final Pattern GLIBC_PREFIX = Pattern.compile("^(_|GI_|libc_)+");
    /** HotSpot's locking and sleeping primitives: where a JVM thread waits is the frame below them. */
    private static final Pattern PRIMITIVE = Pattern.compile("(os|PlatformMonitor|PlatformMutex|PlatformEvent|PlatformParker|Monitor|Mutex|"
            + "Parker|ParkEvent|ObjectMonitor|Semaphore|PosixSemaphore|WaitBarrier|GenericWaitBarrier|LinuxWaitBarrier|"
            + "WaitBarrierType|MonitorLocker|MutexLocker|ThreadBlockInVM|InterruptibleThreadBlockInVM|SafepointMechanism)(<[^:]*>)?::.*");

    private WallTime() {
    }

    public static State state(Profile.Stack stack) {
        List<Profile.Frame> frames = stack.frames();
        if (frames.isEmpty()) {
            return State.RUNNING;
        }
        Profile.Frame leaf = frames.get(frames.size() - 1);
        return !leaf.kind().java() && blockingCall(leaf.name()) ? State.WAITING : State.RUNNING;
    }

    static boolean blockingCall(String name) {
        String bare = name;
        int at = bare.indexOf('@');
        if (at > 0) {
            bare = bare.substring(0, at);
        }
        if (bare.contains("futex")) {
            return true;
        }
        return BLOCKING_CALLS.contains(GLIBC_PREFIX.matcher(bare).replaceFirst(""));
    }

    /** Where the stack is: the application's innermost frame, with the JDK frame it called when that is the innermost Java frame. */
    public static String where(Profile.Stack stack) {
        List<Profile.Frame> frames = stack.frames();
        Profile.Frame innermostJava = null;
        for (int i = frames.size() - 1; i >= 0; i--) {
            Profile.Frame frame = frames.get(i);
            if (!frame.kind().java()) {
                continue;
            }
            if (innermostJava == null) {
                innermostJava = frame;
            }
            if (!jdk(frame.name())) {
                return frame == innermostJava ? frame.name() : innermostJava.name() + " <- " + frame.name();
            }
        }
        if (innermostJava != null) {
            return innermostJava.name();
        }
        for (int i = frames.size() - 1; i >= 0; i--) {
            String name = frames.get(i).name();
            if (name.contains("::") && !PRIMITIVE.matcher(name).matches()) {
                return name;
            }
        }
        return frames.isEmpty() ? "(no frames)" : frames.get(frames.size() - 1).name();
    }

    private static boolean jdk(String name) {
        return name.startsWith("java.") || name.startsWith("jdk.") || name.startsWith("sun.") || name.startsWith("com.sun.");
    }

    /** Every thread, the most running first, then those with Java frames, then the most samples, then by name. */
    public static List<ThreadTime> threads(Profile profile) {
        Map<List<Object>, Map<List<Object>, Long>> byThread = new LinkedHashMap<>();
        Set<List<Object>> java = new HashSet<>();
        for (Profile.Stack stack : profile.stacks()) {
            List<Object> thread = List.of(stack.thread() == null ? "" : stack.thread(), stack.tid());
            byThread.computeIfAbsent(thread, k -> new LinkedHashMap<>()).merge(List.of(state(stack), where(stack)), stack.samples(), Long::sum);
            if (hasJava(stack)) {
                java.add(thread);
            }
        }
        List<ThreadTime> threads = new ArrayList<>();
        byThread.forEach((thread, places) -> {
            long running = places.entrySet().stream().filter(e -> e.getKey().get(0) == State.RUNNING).mapToLong(Map.Entry::getValue).sum();
            long all = places.values().stream().mapToLong(Long::longValue).sum();
            Map.Entry<List<Object>, Long> most = places.entrySet().stream().max(Map.Entry.<List<Object>, Long>comparingByValue()
                    .thenComparing(e -> (String) e.getKey().get(1), Comparator.reverseOrder())).orElseThrow();
            threads.add(new ThreadTime((String) thread.get(0), (Long) thread.get(1), all, running, all - running,
                    (State) most.getKey().get(0), (String) most.getKey().get(1), most.getValue(), java.contains(thread)));
        });
        threads.sort(Comparator.comparingLong(ThreadTime::running).reversed().thenComparing(ThreadTime::java, Comparator.reverseOrder())
                .thenComparing(Comparator.comparingLong(ThreadTime::samples).reversed()).thenComparing(ThreadTime::name));
        return threads;
    }

    private static boolean hasJava(Profile.Stack stack) {
        return stack.frames().stream().anyMatch(f -> f.kind().java());
    }

    /** Where threads waited, the application's places (Java frames) first, then the most samples first. */
    public static List<Wait> waits(Profile profile) {
        Map<String, long[]> samples = new LinkedHashMap<>();
        Map<String, Set<Long>> threads = new LinkedHashMap<>();
        Set<String> java = new HashSet<>();
        for (Profile.Stack stack : profile.stacks()) {
            if (state(stack) == State.WAITING) {
                String where = where(stack);
                if (hasJava(stack)) {
                    java.add(where);
                }
                samples.computeIfAbsent(where, k -> new long[1])[0] += stack.samples();
                threads.computeIfAbsent(where, k -> new HashSet<>()).add(stack.tid());
            }
        }
        List<Wait> waits = new ArrayList<>();
        samples.forEach((where, n) -> waits.add(new Wait(where, n[0], threads.get(where).size(), java.contains(where))));
        waits.sort(Comparator.comparing(Wait::java, Comparator.reverseOrder()).thenComparing(Comparator.comparingLong(Wait::samples).reversed())
                .thenComparing(Wait::where));
        return waits;
    }

    /** The samples that were running. */
    public static Profile running(Profile profile) {
        return profile.filter(s -> state(s) == State.RUNNING);
    }
}
