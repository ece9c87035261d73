package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.VmThread;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThreadTableTest {
    @Test
    void alignsColumnsAndPrintsTheNameLastAndPrintable() {
        StringWriter text = new StringWriter();
        ThreadTable.print(new PrintWriter(text), List.of(
                new ThreadEntry(1, "main", "RUNNABLE", List.of(), false, 5, "main", 12_345_678, 4242, false, null),
                new ThreadEntry(23, "tab\there", "WAITING", List.of("parked", "interrupted"), true, 10, null, -1, 0, false,
                        new WaitingFor("park", "java.util.concurrent.locks.ReentrantLock$NonfairSync", 0xbeef, 1)),
                new ThreadEntry(24, "jvmti-cli agent", "RUNNABLE", List.of(), true, 5, "system", 1_000_000, 77, true, null),
                new VmThread("C2 CompilerThread0", true, 7L, true, 9, "RUNNABLE", 300_000_000, 78, "waiting on condition", null, 0, null),
                new VmThread("GC Thread#0", false, null, null, null, null, 2_000_000, 0, null, null, null, null)));
        assertEquals(String.join("\n",
                "ID  KIND   NID  STATE     CPU_MS  PRI  DAEMON  DETAIL              WAITING_FOR                              GROUP   NAME",
                " 1  java  4242  RUNNABLE      12    5  -       -                   -                                        main    main",
                "23  java     ?  WAITING        ?   10  daemon  parked,interrupted  ReentrantLock$NonfairSync@beef owner #1  -       tab\\there",
                "24  java    77  RUNNABLE       1    5  daemon  jvmti-cli agent     -                                        system  jvmti-cli agent",
                " 7  vm      78  RUNNABLE     300    9  daemon  -                   -                                        -       C2 CompilerThread0",
                " -  vm       ?  -              2    -  -       -                   -                                        -       GC Thread#0",
                ""), text.toString());
    }
}
