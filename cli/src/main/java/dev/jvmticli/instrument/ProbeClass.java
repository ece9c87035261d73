package dev.jvmticli.instrument;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * The class the probes call, which the agent defines in the target's boot loader (visible to every
 * class) and whose native methods it binds to itself: {@code returned(id, start)} at each normal
 * exit, {@code threw(id, start)} at each exit by an exception, start being {@code System.nanoTime()}
 * at the method's entry; {@code created(id, throwable)} at the end of each of Throwable's
 * constructors ({@code exceptions}). No Java code of the tool runs in the target.
 */
public final class ProbeClass {
    /** The probe class's internal name; the agent's TRACE_PROBE_CLASS. */
    public static final String NAME = "dev/jvmticli/probe/TraceProbe";
    static final String RETURNED = "returned";
    static final String THREW = "threw";
    static final String DESCRIPTOR = "(IJ)V";
    static final String CREATED = "created";
    static final String CREATED_DESCRIPTOR = "(ILjava/lang/Throwable;)V";

    private ProbeClass() {
    }

    /** Its class file (Java 11's format: every JDK the tool attaches to reads it). */
    public static byte[] bytes() {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V11, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL | Opcodes.ACC_SUPER, NAME, null, "java/lang/Object", null);
        for (String name : new String[] {RETURNED, THREW}) {
            writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_NATIVE, name, DESCRIPTOR, null, null).visitEnd();
        }
        writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_NATIVE, CREATED, CREATED_DESCRIPTOR, null, null).visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }
}
