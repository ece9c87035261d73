package dev.jvmticli.analysis;

import dev.jvmticli.client.ClassLoadersReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metaspace of each class loader, as the JVM counts it: the rows of {@code VM.classloader_stats}
 * (per class loader data: classes, the metaspace chunks it holds and the blocks used in them,
 * hidden classes apart), tied to the loaders of a {@code classloaders} answer through
 * {@code VM.classloaders verbose fold=false} (each loader's name, class and parent, with its class
 * loader data). Neither names a loader by anything JVMTI can see (their addresses move), so a loader
 * is matched by its class, its name and its parents'. Loaders alike in all of
 * that are told apart only when the JVM's figures for them are equal too; otherwise each gets the
 * figures of the whole group, and alike says how many share them.
 */
public final class ClassLoaderMetaspace {
    private static final Pattern STATS_ROW = Pattern.compile(
            "^(0x\\p{XDigit}+)\\s+(0x\\p{XDigit}+)\\s+(0x\\p{XDigit}+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\S.*?)\\s*$");
    private static final Pattern HIDDEN_ROW = Pattern.compile("^\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+\\+ hidden classes\\s*$");
    private static final Pattern TREE_NODE = Pattern.compile("^([ |]*)\\+-- (.*?)\\s*$");
    private static final Pattern TREE_DATA = Pattern.compile("^[ |]*Loader Data: (0x\\p{XDigit}+)\\s*$");
    private static final Pattern NAMED = Pattern.compile("^\"(.*)\", (\\S+)$");

    private ClassLoaderMetaspace() {
    }

    /**
     * What the JVM counts for one loader. chunkBytes is the metaspace its chunks take, blockBytes what
     * is used in them, hidden classes' included; alike is 1 when these are the loader's own, n when
     * they are the sum of n loaders that could not be told apart.
     */
    public record Metaspace(String classLoaderData, long classes, long hiddenClasses, long chunkBytes, long blockBytes, int alike) {
    }

    /** A row of VM.classloader_stats. */
    record StatsRow(String cld, long classes, long chunk, long block, long hiddenClasses, long hiddenChunk, long hiddenBlock) {
    }

    /** A loader of VM.classloaders' tree. */
    record TreeNode(String cld, String name, String type, TreeNode parent) {
    }

    /** Each loader's metaspace by its id; a loader left out when its rows could not be found (one made or freed between the reads). */
    public static Map<Long, Metaspace> of(ClassLoadersReport report) {
        if (report.classLoaderStats() == null || report.classLoaderTree() == null) {
            return Map.of();
        }
        Map<String, StatsRow> stats = stats(report.classLoaderStats());
        Map<String, List<StatsRow>> theirs = new HashMap<>();
        for (TreeNode node : tree(report.classLoaderTree())) {
            String key = key(node, stats);
            if (key != null) {
                theirs.computeIfAbsent(key, k -> new ArrayList<>()).add(stats.get(node.cld()));
            }
        }
        Map<Long, ClassLoadersReport.Loader> byId = new HashMap<>();
        report.loaders().forEach(l -> byId.put(l.id(), l));
        Map<String, List<Long>> ours = new LinkedHashMap<>();
        for (ClassLoadersReport.Loader loader : report.loaders()) {
            ours.computeIfAbsent(key(loader, byId, 0), k -> new ArrayList<>()).add(loader.id());
        }
        Map<Long, Metaspace> result = new HashMap<>();
        ours.forEach((key, ids) -> {
            List<StatsRow> rows = theirs.getOrDefault(key, List.of());
            if (rows.size() != ids.size()) {
                return;
            }
            boolean same = rows.stream().allMatch(r -> r.chunk() == rows.get(0).chunk() && r.block() == rows.get(0).block()
                    && r.hiddenChunk() == rows.get(0).hiddenChunk() && r.hiddenBlock() == rows.get(0).hiddenBlock()
                    && r.hiddenClasses() == rows.get(0).hiddenClasses());
            if (ids.size() == 1 || same) {
                for (int i = 0; i < ids.size(); i++) {
                    StatsRow r = rows.get(i);
                    result.put(ids.get(i), new Metaspace(ids.size() == 1 ? r.cld() : null, r.classes(), r.hiddenClasses(),
                            r.chunk() + r.hiddenChunk(), r.block() + r.hiddenBlock(), 1));
                }
            } else {
                long classes = 0, hidden = 0, chunk = 0, block = 0;
                for (StatsRow r : rows) {
                    classes += r.classes();
                    hidden += r.hiddenClasses();
                    chunk += r.chunk() + r.hiddenChunk();
                    block += r.block() + r.hiddenBlock();
                }
                for (Long id : ids) {
                    result.put(id, new Metaspace(null, classes, hidden, chunk, block, ids.size()));
                }
            }
        });
        return result;
    }

    static Map<String, StatsRow> stats(String text) {
        Map<String, StatsRow> rows = new LinkedHashMap<>();
        StatsRow last = null;
        for (String line : text.split("\n")) {
            Matcher row = STATS_ROW.matcher(line);
            Matcher hidden = HIDDEN_ROW.matcher(line);
            if (row.matches()) {
                last = new StatsRow(row.group(3), Long.parseLong(row.group(4)), Long.parseLong(row.group(5)), Long.parseLong(row.group(6)), 0, 0, 0);
                rows.put(last.cld(), last);
            } else if (hidden.matches() && last != null) {
                last = new StatsRow(last.cld(), last.classes(), last.chunk(), last.block(), Long.parseLong(hidden.group(1)),
                        Long.parseLong(hidden.group(2)), Long.parseLong(hidden.group(3)));
                rows.put(last.cld(), last);
            }
        }
        return rows;
    }

    static List<TreeNode> tree(String text) {
        List<TreeNode> nodes = new ArrayList<>();
        List<Integer> columns = new ArrayList<>();
        List<TreeNode> open = new ArrayList<>();
        String pendingName = null, pendingType = null;
        TreeNode pendingParent = null;
        int pendingColumn = 0;
        for (String line : text.split("\n")) {
            Matcher node = TREE_NODE.matcher(line);
            Matcher data = TREE_DATA.matcher(line);
            if (node.matches()) {
                pendingColumn = node.group(1).length();
                while (!columns.isEmpty() && columns.get(columns.size() - 1) >= pendingColumn) {
                    columns.remove(columns.size() - 1);
                    open.remove(open.size() - 1);
                }
                pendingParent = open.isEmpty() ? null : open.get(open.size() - 1);
                Matcher named = NAMED.matcher(node.group(2));
                pendingName = named.matches() ? named.group(1) : null;
                pendingType = named.matches() ? named.group(2) : node.group(2);
            } else if (data.matches() && pendingType != null) {
                TreeNode made = new TreeNode(data.group(1), pendingName, pendingType, pendingParent);
                nodes.add(made);
                columns.add(pendingColumn);
                open.add(made);
                pendingType = null;
            }
        }
        return nodes;
    }

    /**
     * What tells a loader of the tree apart: its class, its name and its parents'; null without its row
     * of stats. Not its number of classes: the JVM counts a hidden class with its loader's own unless
     * it was defined to be unloaded apart, which JVMTI does not tell.
     */
    private static String key(TreeNode node, Map<String, StatsRow> stats) {
        StringBuilder key = new StringBuilder();
        for (TreeNode n = node; n != null; n = n.parent()) {
            StatsRow row = stats.get(n.cld());
            if (row == null) {
                return null;
            }
            key.append(n.type()).append('|').append(n.name()).append('/');
        }
        return key.toString();
    }

    private static String key(ClassLoadersReport.Loader loader, Map<Long, ClassLoadersReport.Loader> byId, int depth) {
        String own = loader.loaderClass() + "|" + loader.name() + "/";
        if (loader.id() == 0 || depth > 64) {
            return own;
        }
        ClassLoadersReport.Loader parent = byId.get(Objects.requireNonNullElse(loader.parent(), 0L));
        return parent == null ? own + "?" : own + key(parent, byId, depth + 1);
    }
}
