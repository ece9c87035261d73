package dev.jvmticli.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON thread dumps of {@code jvmti-cli stacks --json} and of
 * {@code jcmd PID Thread.dump_to_file -format=json} written as the jstack-format text that
 * {@link DumpConsistency} judges: each fact the dump states (state, frames, what the thread waits
 * for, the monitors it holds, virtual, pinned, mounted, carrying) as jstack or jvmti-cli's text
 * writes it, and nothing the dump does not state (a carrier whose frames show a virtual thread
 * mounted but not which one, {@code mountUnsettled}, carries one). jcmd states less: no pinned; on JDK 21 no state
 * and no lock facts (then none of its threads has a state line, and the checker has nothing of
 * it to judge); its carrier is written beside the virtual thread, so a carrier "carries" the
 * virtual threads that name it. ({@link JcmdThreadDump} writes jcmd's dump too, for checks of the
 * text of {@code stacks}; it gives JDK 21's threads the state UNKNOWN, which the checker then judges.)
 */
public final class JsonThreadDumps {
    /**
     * What {@link StackTraceElement#toString} puts before the class (class loader and module,
     * each ending in '/'), but not a hidden class's {@code /0x...} suffix.
     */
    private static final Pattern FRAME_PREFIX = Pattern.compile("^(?:[^/(]*/(?!0x))*");

    private JsonThreadDumps() {
    }

    /**
     * The threads of `stacks --json` (with `--all`: platform and virtual). Where the virtual threads'
     * lock source is {@code parked-only} (JDK 21-24 after a live attach: no ThreadSnapshot), the
     * dump states that it does not know the monitors they enter, wait on or hold: their lock lines
     * are written as left out, as a thread that never settled has them.
     */
    public static String ofStacks(JsonNode document) {
        boolean virtualMonitorsUnknown = document.path("lockSource").asText().endsWith("parked-only");
        StringBuilder text = new StringBuilder();
        for (JsonNode entry : document.path("threads")) {
            JsonNode thread = entry.path("thread");
            boolean virtual = thread.path("virtual").asBoolean();
            text.append('"').append(thread.path("name").asText()).append("\" #").append(thread.path("id").asLong())
                    .append(virtual ? " virtual" + (thread.path("pinned").asBoolean() ? " pinned" : "") : " prio=5").append('\n');
            String state = thread.path("state").asText();
            text.append("   java.lang.Thread.State: ").append(state).append(detail(state, thread.path("flags"))).append('\n');
            List<String> frames = new ArrayList<>();
            entry.path("frames").forEach(f -> frames.add(f.path("class").asText() + "." + f.path("method").asText()));
            JsonNode wait = entry.path("waitingFor");
            List<List<String>> locks = new ArrayList<>();
            frames.forEach(f -> locks.add(new ArrayList<>()));
            List<String> waitLines = new ArrayList<>();
            if (entry.path("waitUnnamed").asBoolean()) {
                waitLines.add("waiting on <no object reference available>");
            } else if (!wait.isMissingNode() && !wait.isNull()) {
                String kind = switch (wait.path("kind").asText()) {
                    case "enter" -> "waiting to lock";
                    case "notify" -> "waiting on";
                    default -> "parking to wait for";
                };
                waitLines.add(kind + " " + lock(wait.path("class").asText(), Long.toHexString(wait.path("hash").asLong())));
            }
            for (JsonNode locked : entry.path("locked")) {
                int depth = locked.path("depth").asInt();
                if (depth >= 0 && depth < locks.size()) {
                    locks.get(depth).add("locked " + lock(locked.path("class").asText(), Long.toHexString(locked.path("hash").asLong())));
                }
            }
            appendFrames(text, frames, waitLines, locks);
            if (entry.path("unsettled").asBoolean()) {
                text.append(DumpConsistency.UNSETTLED).append(" the thread never settled\n");
            } else if (virtual && virtualMonitorsUnknown) {
                text.append(DumpConsistency.UNSETTLED).append(" no monitor facts of virtual threads (lock source parked-only)\n");
            }
            if (thread.has("carrierId")) {
                text.append("   Mounted on carrier #").append(thread.path("carrierId").asLong()).append('\n');
            }
            if (thread.has("carrying")) {
                text.append("   Carrying virtual thread #").append(thread.path("carrying").asLong()).append('\n');
            } else if (!virtual && thread.path("mountUnsettled").asBoolean()) {
                text.append("   Carrying a virtual thread: which one is not known\n");
            }
            text.append('\n');
        }
        return text.toString();
    }

    /** jstack's word for how a thread waits, from the JVMTI flags `stacks` reports with it. */
    private static String detail(String state, JsonNode flags) {
        Set<String> set = new HashSet<>();
        flags.forEach(f -> set.add(f.asText()));
        if (state.equals("BLOCKED") || (state.endsWith("WAITING") && set.contains("in_object_wait"))) {
            return " (on object monitor)";
        }
        if (state.endsWith("WAITING") && set.contains("parked")) {
            return " (parking)";
        }
        return state.endsWith("WAITING") && set.contains("sleeping") ? " (sleeping)" : "";
    }

    /** Every thread of every thread container of jcmd's JSON dump. */
    public static String ofJcmd(JsonNode document) {
        List<JsonNode> threads = threads(document);
        Set<String> carriers = new HashSet<>();
        threads.forEach(t -> {
            if (t.has("carrier")) {
                carriers.add(t.path("carrier").asText());
            }
        });
        StringBuilder text = new StringBuilder();
        for (JsonNode thread : threads) {
            boolean virtual = thread.path("virtual").asBoolean();
            text.append('"').append(thread.path("name").asText()).append("\" #").append(thread.path("tid").asText())
                    .append(virtual ? " virtual" : " prio=5").append('\n');
            if (thread.has("state")) {
                String state = thread.path("state").asText();
                String detail = thread.has("parkBlocker") ? " (parking)"
                        : thread.has("waitingOn") || state.equals("BLOCKED") ? " (on object monitor)" : "";
                text.append("   java.lang.Thread.State: ").append(state).append(detail).append('\n');
            }
            List<String> frames = new ArrayList<>();
            thread.path("stack").forEach(f -> frames.add(method(f.asText())));
            List<String> waitLines = new ArrayList<>();
            if (thread.has("blockedOn")) {
                waitLines.add("waiting to lock " + lock(thread.path("blockedOn").asText()));
            }
            if (thread.has("waitingOn")) {
                waitLines.add("waiting on " + lock(thread.path("waitingOn").asText()));
            }
            if (thread.has("parkBlocker")) {
                waitLines.add("parking to wait for " + lock(thread.path("parkBlocker").path("object").asText()));
            }
            List<List<String>> locks = new ArrayList<>();
            frames.forEach(f -> locks.add(new ArrayList<>()));
            for (JsonNode owned : thread.path("monitorsOwned")) {
                int depth = owned.path("depth").asInt();
                owned.path("locks").forEach(l -> {
                    if (depth < locks.size() && !l.isNull()) {
                        locks.get(depth).add("locked " + lock(l.asText()));
                    }
                });
            }
            appendFrames(text, frames, waitLines, locks);
            if (thread.has("carrier")) {
                text.append("   Mounted on carrier #").append(thread.path("carrier").asText()).append('\n');
            }
            if (!virtual && carriers.contains(thread.path("tid").asText())) {
                text.append("   Carrying a virtual thread\n");
            }
            text.append('\n');
        }
        return text.toString();
    }

    /** How many threads jcmd's JSON dump lists. */
    public static int threadCount(JsonNode document) {
        return threads(document).size();
    }

    /** How many virtual threads jcmd's JSON dump lists (JDK 21's marks none: there, those that run VirtualThread.run). */
    public static long virtualThreads(JsonNode document) {
        return threads(document).stream().filter(t -> t.path("virtual").asBoolean() || hasFrame(t, "java.lang.VirtualThread.run")).count();
    }

    /** How many threads of jcmd's JSON dump have the method (class.method) on their stack, and not the other one (null: any). */
    public static long threadsIn(JsonNode document, String method, String notUnder) {
        return threads(document).stream().filter(t -> hasFrame(t, method) && (notUnder == null || !hasFrame(t, notUnder))).count();
    }

    private static boolean hasFrame(JsonNode thread, String method) {
        for (JsonNode frame : thread.path("stack")) {
            if (method(frame.asText()).equals(method)) {
                return true;
            }
        }
        return false;
    }

    private static List<JsonNode> threads(JsonNode document) {
        List<JsonNode> threads = new ArrayList<>();
        document.path("threadDump").path("threadContainers").forEach(c -> c.path("threads").forEach(threads::add));
        return threads;
    }

    /** The class and method of a StackTraceElement's text: {@code java.base/java.lang.Object.wait0(Native Method)}. */
    static String method(String frame) {
        String call = frame.substring(0, frame.indexOf('(') < 0 ? frame.length() : frame.indexOf('('));
        Matcher prefix = FRAME_PREFIX.matcher(call);
        return prefix.lookingAt() ? call.substring(prefix.end()) : call;
    }

    /** jcmd's {@code class@hexhash} as jstack's lock text. */
    private static String lock(String identity) {
        int at = identity.lastIndexOf('@');
        return at < 0 ? "<0x0> (a " + identity + ")" : lock(identity.substring(0, at), identity.substring(at + 1));
    }

    private static String lock(String className, String hexHash) {
        return "<0x" + hexHash + "> (a " + className + ")";
    }

    /** The frames, the wait lines under the top one, each frame's locked lines under it (jstack's order). */
    private static void appendFrames(StringBuilder text, List<String> frames, List<String> waitLines, List<List<String>> locks) {
        if (frames.isEmpty()) {
            waitLines.forEach(l -> text.append("\t- ").append(l).append('\n'));
        }
        for (int i = 0; i < frames.size(); i++) {
            text.append("\tat ").append(frames.get(i)).append("(Unknown Source)\n");
            if (i == 0) {
                waitLines.forEach(l -> text.append("\t- ").append(l).append('\n'));
            }
            locks.get(i).forEach(l -> text.append("\t- ").append(l).append('\n'));
        }
    }
}
