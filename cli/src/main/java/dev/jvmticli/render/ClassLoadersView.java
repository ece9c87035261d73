package dev.jvmticli.render;

import dev.jvmticli.analysis.ClassLoaderMetaspace;
import dev.jvmticli.client.ClassLoadersReport;
import dev.jvmticli.client.HeapPathsReport;
import dev.jvmticli.client.HeapReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code memory --classloaders}: each loader with its classes and metaspace, then the dead-looking ones with a path. */
public final class ClassLoadersView {
    private ClassLoadersView() {
    }

    public static void print(PrintWriter out, ClassLoadersReport report, Map<Long, ClassLoaderMetaspace.Metaspace> metaspace, int top) {
        Map<Long, ClassLoadersReport.Loader> byId = byId(report);
        long dead = report.loaders().stream().filter(ClassLoadersReport.Loader::saidDead).count();
        long unreachable = report.loaders().stream().filter(l -> !l.reachable()).count();
        out.printf(Locale.ROOT, "%d class loaders, %d classes loaded; %d look%s dead but %s reachable, %d %s unreachable (freed when a collection next unloads classes)%n",
                report.loaders().size(), report.loadedClasses(), dead, dead == 1 ? "s" : "", dead == 1 ? "is" : "are", unreachable,
                unreachable == 1 ? "is" : "are");
        List<ClassLoadersReport.Loader> shown = shown(report, metaspace, top);
        Table table = new Table("ID", "CLASSES", "HIDDEN", "METASPACE", "USED", "INSTANCES", "THREADS", "STATE", "LOADER", "PARENT")
                .alignRight(0, 1, 2, 3, 4, 5, 6);
        for (ClassLoadersReport.Loader l : shown) {
            ClassLoaderMetaspace.Metaspace m = metaspace.get(l.id());
            String alike = m != null && m.alike() > 1 ? " (" + m.alike() + " alike)" : "";
            table.add(String.valueOf(l.id()), String.valueOf(l.classes()), String.valueOf(l.hiddenClasses()),
                    m == null ? "?" : Sizes.bytes(m.chunkBytes()) + alike, m == null ? "?" : Sizes.bytes(m.blockBytes()),
                    String.valueOf(l.instances()), String.valueOf(l.threads()), state(l), name(l, byId), parent(l, byId));
        }
        table.print(out);
        if (shown.size() < report.loaders().size()) {
            out.printf("(%d more loaders not listed: --top)%n", report.loaders().size() - shown.size());
        }
        out.println(metaspaceSource(report, metaspace));
        for (ClassLoadersReport.DeadPath path : report.deadPaths()) {
            ClassLoadersReport.Loader l = byId.get(path.loader());
            out.println();
            out.printf("looks dead but reachable: %s, defined %d class%s, none with an instance held from outside its own static fields,"
                    + " no thread in its code; the shortest path from a GC root:%n", name(l, byId), l.classes(), l.classes() == 1 ? "" : "es");
            out.println("  " + HeapPathsView.root(path.root()) + ", which keeps about " + Sizes.bytes(path.root().keepsBytes()));
            if (path.stepsLeftOut() > 0) {
                out.printf("  ... %d object%s left out%n", path.stepsLeftOut(), path.stepsLeftOut() == 1 ? "" : "s");
            }
            for (String step : HeapPathsView.steps(path.steps(), path.stepsLeftOut() > 0)) {
                out.println("  " + step);
            }
        }
        if (dead > report.deadPaths().size()) {
            out.printf("(%d more dead-looking loaders without a path here)%n", dead - report.deadPaths().size());
        }
        if (report.threadsError() != null) {
            out.println("no loader is said to look dead: " + report.threadsError());
        } else if (report.virtualThreads() != null && !report.virtualThreads().allRead()) {
            ClassLoadersReport.VirtualThreads v = report.virtualThreads();
            out.println("no loader is said to look dead: " + (v.error() != null ? v.error()
                    : (v.pastBound() + v.untracked()) + " virtual threads' stacks were not read"));
        }
        out.println();
        out.println(pause(report));
        if (report.virtualThreads() != null) {
            out.println(virtualThreads(report.virtualThreads()));
        }
    }

    /** What was read of the virtual threads' stacks, and the safepoints the JVM counted meanwhile. */
    static String virtualThreads(ClassLoadersReport.VirtualThreads v) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "virtual threads' stacks, read one at a time after the walk (up to %d frames each): %d of %d found read in %s ms",
                v.maxFrames(), v.read(), v.found() + v.untracked(), Sizes.millis(v.elapsedNanos())));
        HeapReport.Safepoints s = v.safepoints();
        if (s == null) {
            line.append(", pause unknown (the JVM keeps no safepoint times)");
        } else if (s.count() == 0) {
            line.append(", no safepoint meanwhile");
        } else {
            line.append(String.format(Locale.ROOT, ", %d safepoint%s meanwhile (any cause): target paused %d ms", s.count(),
                    s.count() == 1 ? "" : "s", s.pausedMillis()));
        }
        if (v.ended() > 0) {
            line.append("; ").append(v.ended()).append(" ended before theirs was read");
        }
        if (v.pastBound() > 0) {
            line.append("; ").append(v.pastBound()).append(" past --max-virtual-threads ").append(v.maxVirtualThreads()).append(" not read");
        }
        if (v.untracked() > 0) {
            line.append("; ").append(v.untracked()).append(" not read: the JDK keeps no list of them (-Djdk.trackAllThreads=false)");
        }
        if (v.error() != null) {
            line.append("; ").append(v.error());
        }
        return line.toString();
    }

    /** The loaders in a table's order: the JDK's first, then the ones that look dead, then by metaspace and classes; the first top. */
    static List<ClassLoadersReport.Loader> shown(ClassLoadersReport report, Map<Long, ClassLoaderMetaspace.Metaspace> metaspace, int top) {
        List<ClassLoadersReport.Loader> loaders = new ArrayList<>(report.loaders());
        loaders.sort(Comparator.comparing((ClassLoadersReport.Loader l) -> !l.builtin())
                .thenComparing(l -> !l.saidDead())
                .thenComparing(l -> metaspace.containsKey(l.id()) ? -metaspace.get(l.id()).chunkBytes() : 0L)
                .thenComparing(l -> -l.classes())
                .thenComparing(ClassLoadersReport.Loader::id));
        return loaders.subList(0, Math.min(top, loaders.size()));
    }

    private static String state(ClassLoadersReport.Loader l) {
        if (l.builtin()) {
            return "JDK's";
        }
        if (!l.reachable()) {
            return "unreachable";
        }
        if (l.looksDead() == null) {
            return "unknown";
        }
        return l.looksDead() ? "LOOKS DEAD" : "in use";
    }

    static String name(ClassLoadersReport.Loader l, Map<Long, ClassLoadersReport.Loader> byId) {
        if (l == null) {
            return "?";
        }
        if (l.id() == 0) {
            return "<bootstrap>";
        }
        String type = l.loaderClass() == null ? "(class unknown)" : l.loaderClass();
        return (l.name() != null ? "\"" + l.name() + "\" " : "") + type + " #" + l.id();
    }

    private static String parent(ClassLoadersReport.Loader l, Map<Long, ClassLoadersReport.Loader> byId) {
        if (l.id() == 0) {
            return "-";
        }
        ClassLoadersReport.Loader parent = l.parent() == null ? null : byId.get(l.parent());
        return parent == null ? "?" : parent.name() != null ? "\"" + parent.name() + "\"" : name(parent, byId);
    }

    private static String metaspaceSource(ClassLoadersReport report, Map<Long, ClassLoaderMetaspace.Metaspace> metaspace) {
        if (report.classLoaderStats() == null || report.classLoaderTree() == null) {
            return "METASPACE unknown: " + (report.classLoaderStats() == null ? report.classLoaderStatsError() : report.classLoaderTreeError());
        }
        long unmatched = report.loaders().size() - metaspace.size();
        return "METASPACE: the chunks each loader holds, USED: the blocks used in them, hidden classes' included (the JVM's VM.classloader_stats,"
                + " read just before the walk)" + (unmatched > 0 ? "; ? for " + unmatched + " loader" + (unmatched == 1 ? "" : "s")
                + " made or freed between that read and the walk" : "");
    }

    /** How long the walk stopped the target, as the JVM counted it, and what it took in the agent. */
    static String pause(ClassLoadersReport report) {
        return HeapPathsView.pause(new HeapPathsReport(report.elapsedNanos(), report.safepoints(), report.objects(), report.roots(),
                report.maxObjects(), 0, report.agentBytes(), 0, 0, 0, List.of()));
    }

    public static Map<String, Object> document(ClassLoadersReport report, Map<Long, ClassLoaderMetaspace.Metaspace> metaspace) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("elapsedNanos", report.elapsedNanos());
        doc.put("safepoints", report.safepoints());
        doc.put("objects", report.objects());
        doc.put("roots", report.roots());
        doc.put("maxObjects", report.maxObjects());
        doc.put("agentBytes", report.agentBytes());
        doc.put("loadedClasses", report.loadedClasses());
        List<Map<String, Object>> loaders = new ArrayList<>();
        for (ClassLoadersReport.Loader l : report.loaders()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("loader", l);
            row.put("metaspace", metaspace.get(l.id()));
            loaders.add(row);
        }
        doc.put("loaders", loaders);
        doc.put("deadPaths", report.deadPaths());
        doc.put("metaspaceError", report.classLoaderStats() == null ? report.classLoaderStatsError()
                : report.classLoaderTree() == null ? report.classLoaderTreeError() : null);
        doc.put("threadsError", report.threadsError());
        doc.put("virtualThreads", report.virtualThreads());
        return doc;
    }

    private static Map<Long, ClassLoadersReport.Loader> byId(ClassLoadersReport report) {
        Map<Long, ClassLoadersReport.Loader> byId = new LinkedHashMap<>();
        report.loaders().forEach(l -> byId.put(l.id(), l));
        return byId;
    }
}
