package dev.jvmticli.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Java thread of a jstack-format dump (jstack's or ours): ids (tid null where the header has
 * none), Thread.State line, frames (methods only: jstack adds module versions), locked ownable
 * synchronizers (their classes), and whether the list says "- None" or that it is not known.
 */
public record DumpedThread(String name, long id, long nid, String tid, String state, List<String> frames, List<String> synchronizers,
                           boolean saysNone, boolean notKnown) {
    private static final Pattern HEADER = Pattern.compile("^\"(.*)\" #(\\d+)\\b(?:.* tid=(0x[0-9a-f]+))?.* nid=(0x[0-9a-f]+|\\d+)\\b");
    private static final Pattern FRAME = Pattern.compile("^\\s+at (\\S+?)\\(");
    private static final Pattern SYNCHRONIZER = Pattern.compile("^\\s+- <0x[0-9a-f]+> \\(a (\\S+)\\)");

    public static List<DumpedThread> parse(String text) {
        List<DumpedThread> threads = new ArrayList<>();
        for (String block : text.split("\n\\s*\n(?=\")")) {
            List<String> lines = block.lines().toList();
            Matcher header = lines.isEmpty() ? null : HEADER.matcher(lines.get(0));
            if (header == null || !header.find()) {
                continue;
            }
            String nid = header.group(4);
            String state = "";
            List<String> frames = new ArrayList<>();
            List<String> synchronizers = new ArrayList<>();
            boolean inSynchronizers = false;
            boolean none = false;
            boolean notKnown = false;
            for (String line : lines) {
                Matcher frame = FRAME.matcher(line);
                Matcher synchronizer = SYNCHRONIZER.matcher(line);
                if (line.trim().startsWith("java.lang.Thread.State: ")) {
                    state = line.trim().substring("java.lang.Thread.State: ".length());
                } else if (line.trim().equals("Locked ownable synchronizers:")) {
                    inSynchronizers = true;
                } else if (!inSynchronizers && frame.find()) {
                    frames.add(frame.group(1));
                } else if (inSynchronizers && synchronizer.find()) {
                    synchronizers.add(synchronizer.group(1));
                } else if (inSynchronizers && line.trim().equals("- None")) {
                    none = true;
                } else if (inSynchronizers && line.trim().startsWith("- (not known")) {
                    notKnown = true;
                }
            }
            threads.add(new DumpedThread(header.group(1), Long.parseLong(header.group(2)),
                    nid.startsWith("0x") ? Long.parseLong(nid.substring(2), 16) : Long.parseLong(nid), header.group(3), state,
                    frames, synchronizers, none, notKnown));
        }
        return threads;
    }
}
