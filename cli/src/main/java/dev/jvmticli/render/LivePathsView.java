package dev.jvmticli.render;

import dev.jvmticli.client.AllocReport;
import dev.jvmticli.client.HeapPathsReport;
import dev.jvmticli.client.LivePaths;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code heap --paths --from-live}: the survivors of an {@code alloc --live} window, by allocation
 * site and path from a GC root, the root named and what it keeps, most estimated bytes first.
 */
public final class LivePathsView {
    private LivePathsView() {
    }

    /** A site's samples on one path: the allocated class, the site as alloc names it, the whole stack. */
    public record PathRow(long samples, long estimatedBytes, String className, String site, String applicationFrame, List<String> frames,
                          long length, HeapPathsReport.Root root, long stepsLeftOut, List<HeapPathsReport.Step> steps) {
    }

    public static List<PathRow> rows(AllocReport report) {
        return report.paths().paths().stream().map(p -> row(report, p)).toList();
    }

    private static PathRow row(AllocReport report, LivePaths.Path path) {
        AllocReport.Stack stack = path.stack() >= 0 && path.stack() < report.stacks().size() ? report.stacks().get(path.stack()) : null;
        long[][] frames = stack == null ? new long[0][] : stack.frames();
        String className = stack == null || stack.classIndex() < 0 || stack.classIndex() >= report.classes().size() ? "?"
                : JvmNames.className(report.classes().get(stack.classIndex()).name());
        String site = frames.length == 0 ? "(no Java frames)" : JvmNames.frame(report.methods(), frames[0]);
        return new PathRow(path.instances(), path.estimatedBytes(), className, site, JvmNames.applicationFrame(report.methods(), frames),
                Arrays.stream(frames).map(f -> JvmNames.frame(report.methods(), f)).toList(), path.length(), path.root(), path.stepsLeftOut(),
                path.steps());
    }

    /** The --json document: alloc --live's, with the paths and the walk's figures. */
    public static Map<String, Object> document(AllocReport report, boolean majorOnly) {
        Map<String, Object> doc = AllocView.document(report, majorOnly);
        LivePaths paths = report.paths();
        Map<String, Object> walk = new LinkedHashMap<>();
        walk.put("walked", paths.walked());
        walk.put("elapsedNanos", paths.elapsedNanos());
        walk.put("safepoints", paths.safepoints());
        walk.put("objects", paths.objects());
        walk.put("roots", paths.roots());
        walk.put("maxObjects", paths.maxObjects());
        walk.put("agentBytes", paths.agentBytes());
        walk.put("samplesReached", paths.instances());
        walk.put("unreachedSamples", paths.unreachedInstances());
        walk.put("samplesNotReached", paths.samplesNotReached());
        walk.put("pathCount", paths.pathCount());
        walk.put("paths", rows(report));
        doc.put("paths", walk);
        return doc;
    }

    public static void print(PrintWriter out, AllocReport report, boolean majorOnly) {
        out.printf("%d samples in %s s at one per %s on average: about %s allocated%n", report.samples(),
                Sizes.seconds(report.durationNanos()), Sizes.bytes(report.interval()), Sizes.bytes(report.estimatedBytes()));
        if (report.gcs() != null) {
            out.printf("GCs during the window: %d%n", report.gcs());
        }
        AllocView.printLive(out, report.live());
        if (majorOnly) {
            out.println("(ZGC: its young collections do not clear weak refs, so ages count major collections only,"
                    + " and an object is known dead only after one)");
        }
        LivePaths paths = report.paths();
        if (!paths.walked()) {
            out.println("No survivor to find a path to: the heap was not walked, and the target not stopped.");
            out.flush();
            return;
        }
        out.printf("Paths from GC roots to them: %d sample%s held strongly, on %d path%s by allocation site%s%s%n", paths.instances(),
                paths.instances() == 1 ? "" : "s", paths.pathCount(), paths.pathCount() == 1 ? "" : "s",
                paths.paths().size() < paths.pathCount() ? ", the " + paths.paths().size() + " with most bytes below" : "", notHeld(paths));
        for (PathRow row : rows(report)) {
            out.println();
            HeapPathsReport.Root root = row.root();
            String keeps = root.references() > 1 ? "the " + root.references() + " of them keep about " : "which keeps about ";
            out.printf("about %s in %d sample%s of %s allocated at %s: %s, %s%s%n", Sizes.bytes(row.estimatedBytes()), row.samples(),
                    row.samples() == 1 ? "" : "s", row.className(), JvmNames.siteWithCaller(row.site(), row.applicationFrame()),
                    HeapPathsView.root(root), keeps, Sizes.bytes(root.keepsBytes()));
            if (row.stepsLeftOut() > 0) {
                out.printf("  ... %d object%s left out (--max-depth)%n", row.stepsLeftOut(), row.stepsLeftOut() == 1 ? "" : "s");
            }
            for (String step : HeapPathsView.steps(row.steps(), row.stepsLeftOut() > 0)) {
                out.println("  " + step);
            }
        }
        out.println();
        out.println(HeapPathsView.pause(paths.walk()));
        out.flush();
    }

    private static String notHeld(LivePaths paths) {
        return paths.unreachedInstances() + paths.samplesNotReached() == 0 ? ""
                : " (" + paths.unreachedInstances() + " more held only through a Reference's referent or from the agent's own thread, "
                    + paths.samplesNotReached() + " not reached by the walk: garbage no collection had freed yet)";
    }
}
