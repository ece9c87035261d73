package dev.jvmticli.render;

import dev.jvmticli.client.HeapPathsReport;
import dev.jvmticli.client.HeapReport;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** {@code heap --paths}: each path from a GC root with its instances, the root named and what it keeps. */
public final class HeapPathsView {
    private HeapPathsView() {
    }

    public static void print(PrintWriter out, String className, HeapPathsReport report) {
        printPaths(out, className, report);
        out.println();
        out.println(pause(report));
    }

    /** The instances of a class and their paths, without the walk's pause. */
    public static void printPaths(PrintWriter out, String className, HeapPathsReport report) {
        String name = readable(className);
        if (report.instances() == 0) {
            out.printf("no instance of %s is reachable from a GC root%s%n", name, unreached(report));
        } else {
            out.printf("%d instance%s of %s reachable from GC roots, on %d path%s (each instance's shortest)%s%s%n", report.instances(),
                    report.instances() == 1 ? "" : "s", name, report.pathCount(), report.pathCount() == 1 ? "" : "s",
                    report.paths().size() < report.pathCount() ? ", the " + report.paths().size() + " with most instances below" : "",
                    unreached(report));
        }
        for (HeapPathsReport.Path path : report.paths()) {
            out.println();
            HeapPathsReport.Root root = path.root();
            String keeps = root.references() > 1 ? "the " + root.references() + " of them keep about " : "which keeps about ";
            out.printf("%d instance%s: %s, %s%s%n", path.instances(), path.instances() == 1 ? "" : "s", root(root), keeps,
                    Sizes.bytes(root.keepsBytes()));
            if (path.stepsLeftOut() > 0) {
                out.printf("  ... %d object%s left out (--max-depth)%n", path.stepsLeftOut(), path.stepsLeftOut() == 1 ? "" : "s");
            }
            for (String step : steps(path.steps(), path.stepsLeftOut() > 0)) {
                out.println("  " + step);
            }
        }
    }

    private static String unreached(HeapPathsReport report) {
        return report.unreachedInstances() == 0 ? ""
                : " (" + report.unreachedInstances() + " more not held by a strong reference from the target's roots:"
                    + " only through a Reference's referent, or from the agent's own thread)";
    }

    /** The root in words: what holds the path's first object. */
    static String root(HeapPathsReport.Root root) {
        String owner = root.className() == null ? "a class loaded during the walk" : readable(root.className());
        return switch (root.kind()) {
            case "staticField" -> "static field " + owner + "." + (root.field() == null ? "#" + root.fieldIndex() : root.field());
            case "constantPool" -> "the constant pool of " + owner;
            case "classLoader" -> "the class loader of " + owner;
            case "signers" -> "the signers of " + owner;
            case "protectionDomain" -> "the protection domain of " + owner;
            case "stackLocal" -> "a local variable (slot " + root.frame().slot() + ") of " + thread(root) + " in " + frame(root.frame());
            case "jniLocal" -> "a JNI local reference of " + thread(root) + " in " + frame(root.frame());
            case "thread" -> "the Thread object of " + thread(root);
            case "jniGlobal" -> "JNI global references";
            case "monitor" -> "monitors held (synchronized, or JNI MonitorEnter)";
            case "systemClass" -> "a system class";
            default -> "the JVM itself (a root JVMTI calls other)";
        };
    }

    private static String thread(HeapPathsReport.Root root) {
        return root.thread() == null ? "thread #" + root.threadId() + " (not a live platform thread now: a virtual thread, or one that ended)"
                : "thread \"" + root.thread() + "\"";
    }

    private static String frame(HeapPathsReport.Frame frame) {
        if (frame == null) {
            return "an unknown frame";
        }
        return readable(frame.className()) + "." + frame.method() + (frame.line() >= 0 ? ":" + frame.line() : "") + " (frame " + frame.depth() + ")";
    }

    /**
     * A line per reference: the object's class and the field it references the next one by
     * ({@code java.util.HashMap.table[]}: the field, then an element of the array it holds), the
     * instance's class last.
     */
    static List<String> steps(List<HeapPathsReport.Step> steps, boolean cut) {
        List<String> lines = new java.util.ArrayList<>();
        for (int i = 1; i < steps.size(); i++) {
            HeapPathsReport.Step step = steps.get(i);
            String holder = holder(steps.get(i - 1));
            if (step.field() != null || step.fieldIndex() != null) {
                String line = holder + "." + (step.field() == null ? "#" + step.fieldIndex() : step.field());
                if (i + 1 < steps.size() && steps.get(i + 1).arrayIndex() != null) {
                    line += "[]";
                    i++;
                }
                lines.add(line);
            } else if (step.arrayIndex() != null) {
                lines.add(holder + " element");
            } else if (step.via() != null) {
                lines.add(holder + " (" + via(step.via()) + ")");
            } else {
                lines.add(holder);
            }
        }
        if (!steps.isEmpty()) {
            lines.add("-> " + holder(steps.get(steps.size() - 1)));
        }
        return lines;
    }

    /** An object of a path: its class, or for a java.lang.Class the class it is ({@code com.shop.Plugin.class}). */
    private static String holder(HeapPathsReport.Step step) {
        return step.classObjectOf() != null ? readable(step.classObjectOf()) + ".class" : readable(step.className());
    }

    private static String via(String reference) {
        return switch (reference) {
            case "classLoader" -> "its defining loader";
            case "definedClass" -> "a class it defined";
            case "class" -> "its class";
            case "superclass" -> "its superclass";
            case "interface" -> "an interface it implements";
            case "protectionDomain" -> "its protection domain";
            case "signers" -> "its signers";
            default -> reference;
        };
    }

    /** "[Ljava.lang.Object;" as "java.lang.Object[]", "[I" as "int[]"; other names as they are. */
    public static String readable(String name) {
        if (name == null) {
            return "(a class loaded during the walk)";
        }
        int dims = 0;
        while (dims < name.length() && name.charAt(dims) == '[') {
            dims++;
        }
        if (dims == 0 || dims == name.length()) {
            return name;
        }
        String element = switch (name.substring(dims)) {
            case "Z" -> "boolean";
            case "B" -> "byte";
            case "C" -> "char";
            case "S" -> "short";
            case "I" -> "int";
            case "J" -> "long";
            case "F" -> "float";
            case "D" -> "double";
            default -> name.startsWith("L", dims) && name.endsWith(";") ? name.substring(dims + 1, name.length() - 1) : name.substring(dims);
        };
        return element + "[]".repeat(dims);
    }

    /** A class's paths as dump --heap looked for them: the report, or why there is none. */
    public record ClassPaths(String className, HeapPathsReport report, String refusal) {
    }

    /** summary.md's section: the roots that hold each class that grew most, with what they keep, and the one walk's pause. */
    public static void printRootsMarkdown(PrintWriter out, List<ClassPaths> classes, String limits) {
        out.println();
        out.println("## What holds the classes that grew most (heap --paths; heap-paths.txt)");
        if (classes.isEmpty()) {
            out.println("Needs two rounds or more (--count), and a class that grew.");
            return;
        }
        out.println("Each instance's shortest path from a GC root, grouped by root; " + limits + ".");
        classes.stream().map(ClassPaths::report).filter(r -> r != null).findFirst()
                .ifPresent(walk -> out.println("One " + pause(walk) + "."));
        for (ClassPaths c : classes) {
            out.println();
            String name = DumpSummary.code(Printable.text(readable(c.className())));
            HeapPathsReport r = c.report();
            if (r == null) {
                out.println("- " + name + ": " + c.refusal());
                continue;
            }
            out.println("- " + name + ": " + r.instances() + " instance" + (r.instances() == 1 ? "" : "s") + " reachable, on " + r.pathCount()
                    + " path" + (r.pathCount() == 1 ? "" : "s") + unreached(r));
            for (HeapPathsReport.Path path : r.paths()) {
                out.println("  - " + path.instances() + " held by " + DumpSummary.code(Printable.text(root(path.root()))) + ", which keeps about "
                        + Sizes.bytes(path.root().keepsBytes()) + ": " + DumpSummary.code(Printable.text(String.join(" ", steps(path.steps(),
                        path.stepsLeftOut() > 0)))));
            }
        }
    }

    /** How long the walk stopped the target, as the JVM counted it, and what it took in the agent. */
    public static String pause(HeapPathsReport report) {
        String walked = String.format(Locale.ROOT, "walk from the roots (%d objects, %d roots; the agent's tables took at most %s, bounded by --max-objects %d)",
                report.objects(), report.roots(), Sizes.bytes(report.agentBytes()), report.maxObjects());
        String took = "the walk took " + Sizes.millis(report.elapsedNanos()) + " ms";
        HeapReport.Safepoints s = report.safepoints();
        if (s == null) {
            return walked + ": pause unknown, the JVM keeps no safepoint times (it runs with -XX:-UsePerfData); " + took;
        }
        return String.format(Locale.ROOT, "%s: target paused %d ms (reaching the safepoint %d ms, at it %d ms; %d safepoint%s%s, in whole ms as the JVM counts them); %s",
                walked, s.pausedMillis(), s.reachingMillis(), s.atSafepointMillis(), s.count(), s.count() == 1 ? "" : "s",
                s.count() > 1 ? ", those of any other cause meanwhile included" : "", took);
    }
}
