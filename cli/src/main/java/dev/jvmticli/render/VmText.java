package dev.jvmticli.render;

import dev.jvmticli.client.Hello;
import dev.jvmticli.client.VmInfo;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/** The JVM facts of a dump, for a person. */
public final class VmText {
    private VmText() {
    }

    public static void print(PrintWriter out, Hello hello, VmInfo vm) {
        out.println(Printable.text("JVM:          " + hello.jvm().name() + " " + hello.jvm().version() + " (" + hello.jvm().vendor() + ")"));
        out.println("Started:      " + (vm.startTimeMillis() > 0 ? Instant.ofEpochMilli(vm.startTimeMillis()).toString() : "unknown"));
        out.println("Uptime:       " + (vm.uptimeMillis() >= 0 ? vm.uptimeMillis() / 1000 + " s" : "unknown"));
        out.println("Agent:        " + hello.agent() + ", " + hello.phase() + " mode");
        out.println("Capabilities: " + String.join(", ", hello.capabilities()));
        out.println();
        out.println("Input arguments:");
        vm.inputArguments().forEach(argument -> out.println("  " + Printable.text(argument)));
        out.println();
        out.println("VM flags:");
        vm.flags().forEach((name, flag) -> out.println(Printable.text("  " + name + " = " + flag.value() + " (" + flag.origin() + ")")));
        out.println();
        out.println("System properties (as JVMTI sees them):");
        Map<String, String> sorted = new TreeMap<>(vm.properties());
        sorted.forEach((name, value) -> out.println(Printable.text("  " + name + " = " + value)));
        out.flush();
    }
}
