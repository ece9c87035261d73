package dev.jvmticli.render;

import dev.jvmticli.analysis.Profile;
import dev.jvmticli.analysis.ProfileSplit;
import dev.jvmticli.analysis.WallTime;
import dev.jvmticli.client.ProfileReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

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

    /**
     * What of the profile was jvmti-cli's own work and left out, in one line: how many samples, in its
     * agent thread and in VM operations it asked for (by name).
     */
    public static String ownWork(ProfileSplit split) {
        long own = split.ownSamples();
        String operations = split.operations().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
        String lost = split.lostSamples() > 0 ? "; " + split.lostSamples() + " samples of the VM thread during its requests could not be"
                + " told apart and are counted as the target's" : "";
        if (split.unreadRequests() > 0) {
            lost += "; the VM thread's samples during " + split.unreadRequests() + " of its requests could not be read and are counted as the"
                    + " target's";
        }
        return "jvmti-cli's own work, left out: " + own + " of " + (split.target().samples() + own) + " samples (" + split.agentThread().samples()
                + (split.helperSamples() > 0 ? " in its agent thread and its sessions' helper threads (" + split.helperSamples() + ")"
                : " in its agent thread") + ", " + split.vmOperations().samples() + " in VM operations it asked for (the VM thread, and GC workers in its class histograms) during its "
                + split.requests() + (split.requests() == 1 ? " request" : " requests") + (operations.isEmpty() ? "" : ": " + operations) + ")" + lost + ".";
    }

    /**
     * The target's stacks outermost first, as the engine annotated their frames, under their thread's
     * frame when byThread; then the tool's own, each under {@link ProfileSplit#OWN_WORK_FRAME} and its
     * thread's frame, so that no graph or collapsed file shows them as the target's.
     */
    public static List<FlameGraph.Sample> flame(ProfileSplit split, boolean byThread) {
        List<FlameGraph.Sample> samples = flame(split.target(), byThread);
        for (Profile own : List.of(split.agentThread(), split.vmOperations())) {
            for (Profile.Stack stack : own.stacks()) {
                List<String> frames = new ArrayList<>();
                frames.add(ProfileSplit.OWN_WORK_FRAME);
                frames.add(threadFrame(stack.thread(), stack.tid()));
                stack.frames().forEach(f -> frames.add(f.annotated()));
                samples.add(new FlameGraph.Sample(frames, stack.samples()));
            }
        }
        return samples;
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
    public static Map<String, Object> document(ProfileReport report, ProfileSplit split, VirtualThreads virtual) {
        Profile profile = split.target();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("event", report.event());
        doc.put("engine", report.engine());
        doc.put("profiler", "async-profiler " + report.profiler());
        doc.put("intervalNanos", report.intervalNanos());
        doc.put("durationMillis", report.durationNanos() / 1_000_000);
        doc.put("samples", profile.samples());
        doc.put("droppedStacks", report.droppedStacks());
        Map<String, Object> own = new LinkedHashMap<>();
        own.put("leftOut", true);
        own.put("samples", split.ownSamples());
        own.put("agentThreadSamples", split.agentThread().samples());
        own.put("vmOperationSamples", split.vmOperations().samples());
        own.put("vmOperations", split.operations());
        own.put("requests", split.requests());
        own.put("lostSamples", split.lostSamples());
        own.put("unreadRequests", split.unreadRequests());
        doc.put("ownWork", own);
        if (report.event().equals("wall")) {
            doc.put("wallThreads", WallTime.threads(profile));
            doc.put("waits", WallTime.waits(profile));
            Map<String, Object> unseen = new LinkedHashMap<>();
            unseen.put("virtualThreads", virtual == null ? null : virtual.count());
            unseen.put("unmountedNotSampled", virtual == null ? null : virtual.unmounted());
            doc.put("virtualThreads", unseen);
        }
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

    /**
     * What wall-clock sampling cannot see when the target has virtual threads: async-profiler samples
     * OS threads, and an unmounted virtual thread has none. Null when the target has none (or the
     * agent cannot count them: virtualThreads null).
     */
    public static String unseenVirtualThreads(VirtualThreads virtual, long pid) {
        if (virtual == null || virtual.count() == 0) {
            return null;
        }
        return "The target had " + virtual.count() + (virtual.count() == 1 ? " virtual thread" : " virtual threads") + " when the profile stopped, "
                + virtual.unmounted() + " of them unmounted, which wall-clock sampling cannot see: async-profiler samples OS threads, and an"
                + " unmounted virtual thread has none (a mounted one is sampled as its carrier). Their waits are not in this profile;"
                + " see them with: jvmti-cli stacks " + pid + " --virtual --group";
    }

    /** The target's virtual threads when the profile stopped: how many, how many mounted. */
    public record VirtualThreads(long count, long mounted) {
        public long unmounted() {
            return count - mounted;
        }
    }

    /** The wall-clock report: what each thread did (running, waiting where), where they waited, and the hottest running methods. */
    public static void printWall(PrintWriter out, ProfileReport report, ProfileSplit split, int top, String virtualLine) {
        Profile profile = split.target();
        out.println(heading(report, profile));
        out.println(ownWork(split));
        if (virtualLine != null) {
            out.println(virtualLine);
        }
        if (!printedStacks(out, report, profile)) {
            return;
        }
        out.println();
        out.println("Wall-clock sampling takes every thread at the same rate, running or not: a thread's samples say how long it");
        out.println("was watched, not how busy it was. Each sample is running or waiting by its innermost frame (waiting: in a");
        out.println("blocking system call such as futex, poll, epoll_wait, nanosleep, read), where by the application's innermost frame.");
        out.println();
        out.println("What each thread did (running the most first):");
        wallThreads(profile, top).print(out);
        List<WallTime.Wait> waits = WallTime.waits(profile);
        long waiting = waits.stream().mapToLong(WallTime.Wait::samples).sum();
        out.println();
        out.println("Where threads waited (" + waiting + " of " + profile.samples() + " samples):");
        Table where = new Table("SAMPLES", "%", "THREADS", "WHERE").alignRight(0, 1, 2);
        waits.stream().limit(top).forEach(w -> where.add(Long.toString(w.samples()), Sizes.percent(w.samples(), waiting),
                Integer.toString(w.threads()), Printable.text(w.where())));
        where.print(out);
        Profile running = WallTime.running(profile);
        out.println();
        if (running.samples() == 0) {
            out.println("No thread was running in any sample.");
        } else {
            out.println("Hottest methods while running (" + running.samples() + " samples; SELF: innermost frame; TOTAL: anywhere on the stack):");
            methods(running, top).print(out);
        }
        out.flush();
    }

    /** Each thread's samples, running and waiting, and what it did most. */
    public static Table wallThreads(Profile profile, int top) {
        Table table = new Table("SAMPLES", "RUNNING%", "WAITING%", "TID", "THREAD", "MOSTLY").alignRight(0, 1, 2, 3);
        WallTime.threads(profile).stream().limit(top).forEach(t -> table.add(Long.toString(t.samples()), Sizes.percent(t.running(), t.samples()),
                Sizes.percent(t.waiting(), t.samples()), t.tid() < 0 ? "-" : Long.toString(t.tid()), Printable.text(t.name()),
                t.mostlyState().label() + " " + Printable.text(t.mostlyWhere()) + " (" + Sizes.percent(t.mostlySamples(), t.samples()) + "%)"));
        return table;
    }

    /** The lines about stacks that could not be had; false when there are no samples to report. */
    private static boolean printedStacks(PrintWriter out, ProfileReport report, Profile profile) {
        if (report.droppedStacks() > 0) {
            out.printf("(%d stacks were too long for the agent's buffer and are left out)%n", report.droppedStacks());
        }
        if (report.error() != null) {
            out.println("async-profiler could not give its stacks: " + Printable.text(report.error()));
        }
        if (profile.samples() == 0) {
            out.println("No samples.");
            out.flush();
            return false;
        }
        return true;
    }

    public static void print(PrintWriter out, ProfileReport report, ProfileSplit split, int top) {
        Profile profile = split.target();
        out.println(heading(report, profile));
        out.println(ownWork(split));
        if (!printedStacks(out, report, profile)) {
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
