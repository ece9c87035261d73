package dev.jvmticli.render;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A plain text table: columns padded to their widest cell, numbers right-aligned, the last one
 * unpadded. Every cell is {@link Printable}: a name with a newline or an escape sequence in it
 * stays on its row and in its column. A row may have lines under it, printable too.
 */
public final class Table {
    private final String[] headers;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();
    private final Map<String[], List<String>> linesUnder = new IdentityHashMap<>();

    public Table(String... headers) {
        this.headers = headers;
        this.rightAligned = new boolean[headers.length];
    }

    public Table alignRight(int... columns) {
        for (int column : columns) {
            rightAligned[column] = true;
        }
        return this;
    }

    public void add(String... cells) {
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = Printable.text(cells[i]);
        }
        rows.add(row);
    }

    /** A row and the lines printed under it, as they are but printable. */
    public void add(List<String> under, String... cells) {
        add(cells);
        linesUnder.put(rows.get(rows.size() - 1), under.stream().map(Printable::text).toList());
    }

    public void print(PrintWriter out) {
        int[] widths = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            widths[i] = headers[i].codePointCount(0, headers[i].length());
            for (String[] row : rows) {
                widths[i] = Math.max(widths[i], row[i].codePointCount(0, row[i].length()));
            }
        }
        printRow(out, headers, widths);
        for (String[] row : rows) {
            printRow(out, row, widths);
            linesUnder.getOrDefault(row, List.of()).forEach(out::println);
        }
        out.flush();
    }

    private void printRow(PrintWriter out, String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            boolean last = i == cells.length - 1;
            String cell = cells[i];
            int pad = widths[i] - cell.codePointCount(0, cell.length());
            if (rightAligned[i]) {
                line.append(" ".repeat(pad)).append(cell);
            } else {
                line.append(cell);
                if (!last) {
                    line.append(" ".repeat(pad));
                }
            }
            if (!last) {
                line.append("  ");
            }
        }
        out.println(line);
    }
}
