package dev.jvmticli.analysis;

import dev.jvmticli.client.ThreadList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A CPU or wall-clock profile read from async-profiler's collapsed stacks with one root frame per
 * thread ({@code [name tid=N]}) and annotated frames: its stacks, hottest methods and busiest
 * threads. The collapsed format carries no line numbers: frames are methods. The engine names a
 * JVM thread by its OS name, cut to 15 bytes; {@link #named} gives threads the names jstack prints.
 */
public final class Profile {
    /** What kind of code a frame ran, from async-profiler's annotation. */
    public enum Kind {
        INTERPRETED("interpreted", "_[0]"),
        C1("c1", "_[1]"),
        COMPILED("compiled", "_[j]"),
        INLINED("inlined", "_[i]"),
        KERNEL("kernel", "_[k]"),
        NATIVE("native", "");

        private final String label;
        private final String suffix;

        Kind(String label, String suffix) {
            this.label = label;
            this.suffix = suffix;
        }

        public String label() {
            return label;
        }

        public boolean java() {
            return this == INTERPRETED || this == C1 || this == COMPILED || this == INLINED;
        }
    }

    /** A frame: its name (a Java method as {@code pkg.Class.method}), kind, and the engine's annotated text. */
    public record Frame(String name, Kind kind, String annotated) {
        static Frame parse(String text) {
            for (Kind kind : Kind.values()) {
                if (kind != Kind.NATIVE && text.endsWith(kind.suffix)) {
                    String name = text.substring(0, text.length() - kind.suffix.length());
                    return new Frame(kind.java() ? name.replace('/', '.') : name, kind, text);
                }
            }
            return new Frame(text, Kind.NATIVE, text);
        }
    }

    /** A distinct stack of one thread, outermost frame first; tid is the OS thread id, -1 when not given. */
    public record Stack(String thread, long tid, List<Frame> frames, long samples) {
    }

    /** A method: samples with it innermost (self) and anywhere in the stack (total), and the kinds it ran as. */
    public record Method(String name, Set<String> kinds, long self, long total) {
    }

    /** A thread and its samples. */
    public record ThreadTotal(String name, long tid, long samples) {
    }

    private final List<Stack> stacks;
    private final long samples;

    private Profile(List<Stack> stacks) {
        this.stacks = List.copyOf(stacks);
        this.samples = stacks.stream().mapToLong(Stack::samples).sum();
    }

    /** Parses the lines; a line that is not "frames COUNT" is skipped. */
    public static Profile parse(List<String> collapsed) {
        List<Stack> stacks = new ArrayList<>();
        for (String line : collapsed) {
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                continue;
            }
            long count;
            try {
                count = Long.parseLong(line.substring(space + 1));
            } catch (NumberFormatException e) {
                continue;
            }
            List<String> texts = List.of(line.substring(0, space).split(";", -1));
            String thread = null;
            long tid = -1;
            String root = texts.get(0);
            int tidAt = root.lastIndexOf("tid=");
            if (root.startsWith("[") && root.endsWith("]") && tidAt > 0) {
                thread = root.substring(1, Math.max(1, tidAt - 1));
                try {
                    tid = Long.parseLong(root.substring(tidAt + 4, root.length() - 1));
                } catch (NumberFormatException e) {
                    tid = -1;
                }
                texts = texts.subList(1, texts.size());
            }
            stacks.add(new Stack(thread, tid, texts.stream().map(Frame::parse).toList(), count));
        }
        return new Profile(stacks);
    }

    public List<Stack> stacks() {
        return stacks;
    }

    public long samples() {
        return samples;
    }

    /**
     * This profile less the samples of other: each stack of the same thread (tid) and frames loses
     * other's samples (never below none); a stack left with none is dropped.
     */
    public Profile minus(Profile other) {
        Map<List<Object>, Long> less = new HashMap<>();
        for (Stack stack : other.stacks) {
            less.merge(List.of(stack.tid(), stack.frames()), stack.samples(), Long::sum);
        }
        List<Stack> kept = new ArrayList<>();
        for (Stack stack : stacks) {
            List<Object> key = List.of(stack.tid(), stack.frames());
            long taken = Math.min(stack.samples(), less.getOrDefault(key, 0L));
            less.computeIfPresent(key, (k, v) -> v - taken);
            if (stack.samples() > taken) {
                kept.add(new Stack(stack.thread(), stack.tid(), stack.frames(), stack.samples() - taken));
            }
        }
        return new Profile(kept);
    }

    /** The samples of this profile that other has too (the same thread and frames), at most as many as either has. */
    public Profile common(Profile other) {
        return minus(minus(other));
    }

    public Profile filter(Predicate<Stack> keep) {
        return new Profile(stacks.stream().filter(keep).toList());
    }

    /**
     * The profile with each thread whose OS thread id is the nid of one of the live threads (Java
     * threads, and the JVM's own threads when the answer has them) named as that thread is; the
     * engine's name where no nid matches (a thread that has ended, or one the JVM does not name).
     */
    public Profile named(ThreadList live) {
        Map<Long, String> names = new HashMap<>();
        live.threads().stream().filter(t -> t.nid() > 0).forEach(t -> names.putIfAbsent(t.nid(), t.name()));
        if (live.vmThreads() != null) {
            live.vmThreads().stream().filter(t -> t.nid() > 0).forEach(t -> names.putIfAbsent(t.nid(), t.name()));
        }
        return new Profile(stacks.stream().map(s -> names.containsKey(s.tid())
                ? new Stack(names.get(s.tid()), s.tid(), s.frames(), s.samples()) : s).toList());
    }

    /** Every method seen, hottest first: by self samples, then total, then name. */
    public List<Method> methods() {
        Map<String, long[]> counts = new LinkedHashMap<>();
        Map<String, Set<String>> kinds = new LinkedHashMap<>();
        for (Stack stack : stacks) {
            Set<String> seen = new LinkedHashSet<>();
            for (int i = 0; i < stack.frames().size(); i++) {
                Frame frame = stack.frames().get(i);
                long[] c = counts.computeIfAbsent(frame.name(), k -> new long[2]);
                kinds.computeIfAbsent(frame.name(), k -> new LinkedHashSet<>()).add(frame.kind().label());
                if (i == stack.frames().size() - 1) {
                    c[0] += stack.samples();
                }
                if (seen.add(frame.name())) {
                    c[1] += stack.samples();
                }
            }
        }
        List<Method> methods = new ArrayList<>();
        counts.forEach((name, c) -> methods.add(new Method(name, kinds.get(name), c[0], c[1])));
        methods.sort(Comparator.comparingLong(Method::self).reversed().thenComparing(Comparator.comparingLong(Method::total).reversed())
                .thenComparing(Method::name));
        return methods;
    }

    /** Every thread seen, busiest first. */
    public List<ThreadTotal> threads() {
        Map<List<Object>, Long> counts = new LinkedHashMap<>();
        for (Stack stack : stacks) {
            counts.merge(List.of(stack.thread() == null ? "" : stack.thread(), stack.tid()), stack.samples(), Long::sum);
        }
        List<ThreadTotal> threads = new ArrayList<>();
        counts.forEach((key, count) -> threads.add(new ThreadTotal((String) key.get(0), (Long) key.get(1), count)));
        threads.sort(Comparator.comparingLong(ThreadTotal::samples).reversed().thenComparing(ThreadTotal::name));
        return threads;
    }
}
