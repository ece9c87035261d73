package dev.jvmticli.render;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain text table: columns padded to their widest cell, numbers right-aligned. The last
 * column is printed as it is, unpadded, so that it may hold anything (a thread name with
 * tabs or newlines in it stays exact).
 */
public final class Table {
    private final String[] headers;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

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
        rows.add(cells);
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
