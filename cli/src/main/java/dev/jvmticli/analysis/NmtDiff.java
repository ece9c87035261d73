package dev.jvmticli.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM's {@code VM.native_memory summary.diff} text (scale KB, as it prints by default) read into
 * its total and categories: committed now and its change since the baseline, and the part of the
 * change that went through malloc. A figure the text does not show changed did not change.
 */
public final class NmtDiff {
    private static final Pattern TOTAL = Pattern.compile(
            "^Total: reserved=(\\d+)KB(?: ([+-]\\d+)KB)?, committed=(\\d+)KB(?: ([+-]\\d+)KB)?");
    private static final Pattern CATEGORY = Pattern.compile(
            "^-\\s+(.+?) \\(reserved=(\\d+)KB(?: ([+-]\\d+)KB)?, committed=(\\d+)KB(?: ([+-]\\d+)KB)?\\)");
    private static final Pattern MALLOC = Pattern.compile("^\\s+\\(malloc=(\\d+)KB(?: ([+-]\\d+)KB)? #(\\d+)(?: ([+-]\\d+))?");

    /** Bytes committed now and their change since the baseline; malloc's share of the change and its change in count. */
    public record Category(String name, long committedBytes, long committedChangeBytes, long mallocBytes, long mallocChangeBytes,
                           long mallocCountChange) {
    }

    public record Diff(Category total, List<Category> categories) {
    }

    private NmtDiff() {
    }

    /** The diff, or null when the text has no total line (not a summary.diff). */
    public static Diff parse(String text) {
        Category total = null;
        List<Category> categories = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            Matcher t = TOTAL.matcher(lines[i]);
            if (t.find()) {
                total = new Category("Total", kb(t.group(3)), kb(t.group(4)), 0, 0, 0);
                continue;
            }
            Matcher c = CATEGORY.matcher(lines[i]);
            if (!c.find()) {
                continue;
            }
            long malloc = 0;
            long mallocChange = 0;
            long countChange = 0;
            for (int j = i + 1; j < lines.length && !lines[j].startsWith("-") && !lines[j].isBlank(); j++) {
                Matcher m = MALLOC.matcher(lines[j]);
                if (m.find()) {
                    malloc = kb(m.group(1));
                    mallocChange = kb(m.group(2));
                    countChange = m.group(4) == null ? 0 : Long.parseLong(m.group(4));
                    break;
                }
            }
            categories.add(new Category(c.group(1), kb(c.group(4)), kb(c.group(5)), malloc, mallocChange, countChange));
        }
        return total == null ? null : new Diff(total, List.copyOf(categories));
    }

    private static long kb(String value) {
        return value == null ? 0 : Long.parseLong(value) * 1024;
    }
}
