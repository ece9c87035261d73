package dev.jvmticli.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineWriterTest {
    @Test
    void handsOverEachLineWhateverPiecesItCameIn() throws IOException {
        List<String> lines = new ArrayList<>();
        LineWriter writer = new LineWriter(lines::add, () -> { });
        writer.write("one\ntw");
        writer.write("o\n\nth".toCharArray(), 0, 5);
        writer.write("xxree\nfour\nfive", 2, 13);
        writer.write('\n');
        writer.write("si");
        writer.write("x".toCharArray());
        writer.finish();
        assertEquals(List.of("one", "two", "", "three", "four", "five", "six"), lines);
    }
}
