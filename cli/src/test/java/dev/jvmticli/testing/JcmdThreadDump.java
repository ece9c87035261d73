package dev.jvmticli.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * jcmd's {@code Thread.dump_to_file -format=json}, the JDK's own dump of platform and virtual
 * threads, taken and written in the layout {@link DumpConsistency} reads: per thread a header
 * ({@code virtual} for a virtual thread), its state (JDK 25+; {@code UNKNOWN} before, when the JSON
 * has none), {@code Mounted on carrier #N} for a mounted virtual thread, {@code Carrying virtual
 * thread #N} for the carrier a virtual thread names, its frames, and what it is blocked on, waits on
 * or is parked on (JDK 25+) as jstack's lock lines, with the state detail they imply.
 */
public final class JcmdThreadDump {
    private JcmdThreadDump() {
    }

    /** Runs jcmd PID Thread.dump_to_file -format=json into dir, and returns the JSON. */
    public static String take(Jdks.Jdk jdk, long pid, Path dir) throws IOException, InterruptedException {
        Path file = dir.resolve("threads-" + System.nanoTime() + ".json");
        Process jcmd = new ProcessBuilder(jdk.home().resolve("bin/jcmd").toString(), Long.toString(pid), "Thread.dump_to_file",
                "-format=json", file.toString()).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (jcmd.waitFor() != 0 || !Files.exists(file)) {
            throw new IOException("jcmd Thread.dump_to_file failed: " + out);
        }
        String json = Files.readString(file);
        Files.delete(file);
        return json;
    }

    /** The dump in jstack's layout, as described above. */
    public static String asJstackText(String json) {
        JsonNode dump = Json.parse(json).path("threadDump");
        Map<String, String> carrying = new HashMap<>();
        List<JsonNode> threads = new java.util.ArrayList<>();
        for (JsonNode container : dump.path("threadContainers")) {
            for (JsonNode t : container.path("threads")) {
                threads.add(t);
                if (t.hasNonNull("carrier")) {
                    carrying.put(t.path("carrier").asText(), t.path("tid").asText());
                }
            }
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode t : threads) {
            String tid = t.path("tid").asText();
            boolean virtual = t.path("virtual").asBoolean(false);
            text.append('"').append(t.path("name").asText()).append("\" #").append(tid).append(virtual ? " virtual" : "").append(" prio=5\n");
            String detail = t.has("blockedOn") ? "on object monitor" : t.has("waitingOn") ? "on object monitor"
                    : t.has("parkBlocker") ? "parking" : null;
            text.append("   java.lang.Thread.State: ").append(t.path("state").asText("UNKNOWN"))
                    .append(detail == null ? "" : " (" + detail + ")").append('\n');
            if (t.hasNonNull("carrier")) {
                text.append("   Mounted on carrier #").append(t.path("carrier").asText()).append('\n');
            }
            if (carrying.containsKey(tid)) {
                text.append("   Carrying virtual thread #").append(carrying.get(tid)).append('\n');
            }
            boolean top = true;
            for (JsonNode frame : t.path("stack")) {
                text.append("\tat ").append(withoutModule(frame.asText())).append('\n');
                if (top) {
                    lockLine(text, t, "blockedOn", "waiting to lock");
                    lockLine(text, t, "waitingOn", "waiting on");
                    lockLine(text, t, "parkBlocker", "parking to wait for");
                    top = false;
                }
            }
            text.append('\n');
        }
        return text.toString();
    }

    private static void lockLine(StringBuilder text, JsonNode t, String field, String words) {
        JsonNode lock = t.path(field);
        if (lock.isMissingNode() || lock.isNull()) {
            return;
        }
        String object = lock.isObject() ? lock.path("object").asText() : lock.asText();
        text.append("\t- ").append(words).append(" <").append(object).append(">\n");
    }

    /** {@code java.base/java.lang.Thread.sleep(Thread.java:1)} as jstack has it: {@code java.lang.Thread.sleep(Thread.java:1)}. */
    private static String withoutModule(String frame) {
        int paren = frame.indexOf('(');
        int slash = frame.lastIndexOf('/', paren < 0 ? frame.length() : paren);
        return slash < 0 ? frame : frame.substring(slash + 1);
    }
}
