package dev.jvmticli.testing;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.regex.Pattern;

/**
 * Every CLI command and direct agent request the tests send, with when it started: what names the
 * command that made a target print a JNI warning (see {@link JniWarningCheck}).
 */
public final class CommandLog {
    /** The newest entries kept: the fuzzing tests send many thousands of requests. */
    private static final int KEPT = 20_000;
    private static final Deque<Entry> ENTRIES = new ArrayDeque<>();

    private CommandLog() {
    }

    /** One command: when it started (System.nanoTime) and how it ran. */
    private record Entry(long startNanos, String command, String how) {
        /** Whether the command names the pid as one of its words. */
        boolean names(long pid) {
            return Pattern.compile("(^|[\\s=:/])" + pid + "($|[\\s.])").matcher(command).find();
        }
    }

    /** Records a command about to run; how is the way it runs ("in-process", "launcher", ...). */
    public static void record(String how, String command) {
        Entry entry = new Entry(System.nanoTime(), command, how);
        synchronized (ENTRIES) {
            if (ENTRIES.size() == KEPT) {
                ENTRIES.removeFirst();
            }
            ENTRIES.addLast(entry);
        }
    }

    public static void record(String how, String[] args) {
        record(how, "jvmti-cli " + String.join(" ", args));
    }

    /**
     * The command that preceded the moment, for a failure message: the last one started before it,
     * and the last naming the pid if that is another (a command for one JVM may set off what
     * another prints; a shell's commands do not name theirs).
     */
    public static String precedingCommand(long nanos, long pid) {
        Entry last = null;
        Entry naming = null;
        synchronized (ENTRIES) {
            for (Iterator<Entry> newestFirst = ENTRIES.descendingIterator(); newestFirst.hasNext() && naming == null; ) {
                Entry entry = newestFirst.next();
                if (entry.startNanos() - nanos > 0) {
                    continue;
                }
                if (last == null) {
                    last = entry;
                }
                if (entry.names(pid)) {
                    naming = entry;
                }
            }
        }
        if (last == null) {
            return "none (it came before any command was sent)";
        }
        String text = describe(last, nanos);
        return naming == null || naming == last ? text : text + "; the last naming pid " + pid + ": " + describe(naming, nanos);
    }

    private static String describe(Entry entry, long nanos) {
        return "`" + entry.command() + "` (" + entry.how() + "), started " + (nanos - entry.startNanos()) / 1_000_000 + " ms before";
    }
}
