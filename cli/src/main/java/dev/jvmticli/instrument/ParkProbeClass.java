package dev.jvmticli.instrument;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * The class the park probes call, which the agent defines in the target's boot loader and whose
 * native methods it binds to itself: {@code ownerOf(blocker)} at the entry of a park (the blocker's
 * exclusive owner when it is an AbstractOwnableSynchronizer, else null), {@code parked(blocker,
 * owner, start)} at its exit, and {@code pinned(start)} at the exit of a virtual thread's park on its
 * carrier; start is {@code System.nanoTime()} at the entry. No Java code of the tool runs in the target.
 */
public final class ParkProbeClass {
    /** Its internal name; the agent's PARK_PROBE_CLASS. */
    public static final String NAME = "dev/jvmticli/probe/ParkProbe";
    static final String OWNER_OF = "ownerOf";
    static final String OWNER_OF_DESCRIPTOR = "(Ljava/lang/Object;)Ljava/lang/Thread;";
    static final String PARKED = "parked";
    static final String PARKED_DESCRIPTOR = "(Ljava/lang/Object;Ljava/lang/Thread;J)V";
    static final String PINNED = "pinned";
    static final String PINNED_DESCRIPTOR = "(J)V";

    private ParkProbeClass() {
    }

    /** Its class file (Java 11's format: every JDK the tool attaches to reads it). */
    public static byte[] bytes() {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V11, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL | Opcodes.ACC_SUPER, NAME, null, "java/lang/Object", null);
        String[][] methods = {{OWNER_OF, OWNER_OF_DESCRIPTOR}, {PARKED, PARKED_DESCRIPTOR}, {PINNED, PINNED_DESCRIPTOR}};
        for (String[] m : methods) {
            writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_NATIVE, m[0], m[1], null, null).visitEnd();
        }
        writer.visitEnd();
        return writer.toByteArray();
    }
}
