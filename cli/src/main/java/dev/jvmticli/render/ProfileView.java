package dev.jvmticli.render;

import dev.jvmticli.analysis.Profile;
import dev.jvmticli.client.ProfileReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The `profile` report: hottest methods, busiest threads, and the stacks as flame graph samples. */
public final class ProfileView {
    private ProfileView() {
    }

    /** The first line: what was sampled, by which engine, for how long. */
    public static String heading(ProfileReport report, Profile profile) {
        return String.format(java.util.Locale.ROOT, "%d samples in %s s: event %s, engine %s, one sample per %s ms of %s (async-profiler %s)",
                profile.samples(), Sizes.seconds(report.durationNanos()), report.event(),
                report.engine() == null ? "unknown (async-profiler could not be asked)" : report.engine(),
                Sizes.millis(report.intervalNanos()), report.event().equals("wall") ? "wall-clock time" : "CPU time", report.profiler());
    }

    /** Each stack outermost first, as the engine annotated its frames, under its thread's frame when byThread. */
    public static List<FlameGraph.Sample> flame(Profile profile, boolean byThread) {
        List<FlameGraph.Sample> samples = new ArrayList<>();
        for (Profile.Stack stack : profile.stacks()) {
            List<String> frames = new ArrayList<>();
            if (byThread) {
                frames.add(threadFrame(stack.thread(), stack.tid()));
            }
            stack.frames().forEach(f -> frames.add(f.annotated()));
            samples.add(new FlameGraph.Sample(frames, stack.samples()));
        }
        return samples;
    }

    static String threadFrame(String name, long tid) {
        return "[" + (name == null || name.isEmpty() ? "" : name + " ") + (tid < 0 ? "tid unknown" : "tid=" + tid) + "]";
    }

    /** The --json document. */
    public static Map<String, Object> document(ProfileReport report, Profile profile) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("event", report.event());
        doc.put("engine", report.engine());
        doc.put("profiler", "async-profiler " + report.profiler());
        doc.put("intervalNanos", report.intervalNanos());
        doc.put("durationMillis", report.durationNanos() / 1_000_000);
        doc.put("samples", profile.samples());
        doc.put("droppedStacks", report.droppedStacks());
        doc.put("methods", profile.methods());
        doc.put("threads", profile.threads());
        doc.put("stacks", profile.stacks().stream().map(s -> {
            Map<String, Object> stack = new LinkedHashMap<>();
            stack.put("thread", s.thread());
            stack.put("tid", s.tid());
            stack.put("samples", s.samples());
            stack.put("frames", s.frames().stream().map(f -> Map.of("name", f.name(), "kind", f.kind().label())).toList());
            return stack;
        }).toList());
        return doc;
    }

    /** The ten (top) hottest methods as a table: self and total samples and shares, and the kinds each ran as. */
    public static Table methods(Profile profile, int top) {
        Table table = new Table("SELF", "SELF%", "TOTAL", "TOTAL%", "METHOD", "KIND").alignRight(0, 1, 2, 3);
        profile.methods().stream().limit(top).forEach(m -> table.add(Long.toString(m.self()), Sizes.percent(m.self(), profile.samples()),
                Long.toString(m.total()), Sizes.percent(m.total(), profile.samples()), m.name(), String.join(",", m.kinds())));
        return table;
    }

    public static Table threads(Profile profile, int top) {
        Table table = new Table("SAMPLES", "%", "TID", "THREAD").alignRight(0, 1, 2);
        profile.threads().stream().limit(top).forEach(t -> table.add(Long.toString(t.samples()), Sizes.percent(t.samples(), profile.samples()),
                t.tid() < 0 ? "-" : Long.toString(t.tid()), t.name()));
        return table;
    }

    public static void print(PrintWriter out, ProfileReport report, Profile profile, int top) {
        out.println(heading(report, profile));
        if (report.droppedStacks() > 0) {
            out.printf("(%d stacks were too long for the agent's buffer and are left out)%n", report.droppedStacks());
        }
        if (report.error() != null) {
            out.println("async-profiler could not give its stacks: " + Printable.text(report.error()));
        }
        if (profile.samples() == 0) {
            out.println("No samples.");
            out.flush();
            return;
        }
        out.println();
        out.println("Hottest methods (SELF: innermost frame; TOTAL: anywhere on the stack):");
        methods(profile, top).print(out);
        out.println();
        out.println("Busiest threads:");
        threads(profile, top).print(out);
        out.flush();
    }
}
