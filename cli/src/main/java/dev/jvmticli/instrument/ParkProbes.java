package dev.jvmticli.instrument;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.AdviceAdapter;
import org.objectweb.asm.commons.Method;

/**
 * Adds the park probes to the JDK's {@code java.util.concurrent.locks.LockSupport} and
 * {@code java.lang.VirtualThread}. In {@code park(Object)}, {@code parkNanos(Object, long)} and
 * {@code parkUntil(Object, long)}: at entry {@code long start = System.nanoTime(); Thread owner =
 * ParkProbe.ownerOf(blocker)}, before each return {@code ParkProbe.parked(blocker, owner, start)}. The
 * same in {@code park()}, {@code parkNanos(long)} and {@code parkUntil(long)}, with the blocker the
 * thread's own ({@code getBlocker(Thread.currentThread())}): a Condition's await parks there after
 * {@code setCurrentBlocker}. A method with a blocker argument that calls one of those three (JDK 21+'s
 * {@code parkUntil(Object, long)}) is left alone, so that no park counts twice. In
 * {@code VirtualThread.parkOnCarrierThread(boolean, long)}, where a virtual thread that cannot unmount
 * parks its carrier (JDK 21+): {@code ParkProbe.pinned(start)} before each return. A park that ends by
 * an exception (none of these throws one itself) is not counted. The new locals come from ASM's
 * LocalVariablesSorter, which writes them into every stack map frame, as {@link LatencyProbes} does.
 */
public final class ParkProbes {
    public static final String LOCK_SUPPORT = "Ljava/util/concurrent/locks/LockSupport;";
    public static final String VIRTUAL_THREAD = "Ljava/lang/VirtualThread;";
    private static final List<String> PARKS_WITH_BLOCKER = List.of("park(Ljava/lang/Object;)V", "parkNanos(Ljava/lang/Object;J)V",
            "parkUntil(Ljava/lang/Object;J)V");
    private static final List<String> PARKS_WITHOUT = List.of("park()V", "parkNanos(J)V", "parkUntil(J)V");
    private static final String LOCK_SUPPORT_INTERNAL = "java/util/concurrent/locks/LockSupport";
    private static final String PARK_ON_CARRIER = "parkOnCarrierThread(ZJ)V";
    private static final Type PROBE = Type.getObjectType(ParkProbeClass.NAME);
    private static final Method OWNER_OF = new Method(ParkProbeClass.OWNER_OF, ParkProbeClass.OWNER_OF_DESCRIPTOR);
    private static final Method PARKED = new Method(ParkProbeClass.PARKED, ParkProbeClass.PARKED_DESCRIPTOR);
    private static final Method PINNED = new Method(ParkProbeClass.PINNED, ParkProbeClass.PINNED_DESCRIPTOR);
    private static final Method NANO_TIME = new Method("nanoTime", "()J");

    /** The class file with its probes and the methods probed ({@code name(descriptor)}). */
    public record Rewritten(byte[] bytes, List<String> methods) {
    }

    private ParkProbes() {
    }

    /** Probes the class named by its JVM signature; a class with nothing to probe comes back with no methods. */
    public static Rewritten rewrite(String classSignature, byte[] classFile) {
        List<String> wanted = switch (classSignature) {
            case LOCK_SUPPORT -> new ArrayList<>(PARKS_WITHOUT);
            case VIRTUAL_THREAD -> List.of(PARK_ON_CARRIER);
            default -> List.of();
        };
        ClassReader reader = new ClassReader(classFile);
        if (classSignature.equals(LOCK_SUPPORT)) {
            PARKS_WITH_BLOCKER.stream().filter(m -> !callsAParkWithout(reader, m)).forEach(wanted::add);
        }
        List<String> probed = new ArrayList<>();
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                String method = name + descriptor;
                if (!wanted.contains(method) || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                    return next;
                }
                probed.add(method);
                return method.equals(PARK_ON_CARRIER) ? new PinnedProbe(next, access, name, descriptor)
                        : new ParkProbe(next, access, name, descriptor, PARKS_WITH_BLOCKER.contains(method));
            }
        }, ClassReader.EXPAND_FRAMES);
        return new Rewritten(writer.toByteArray(), List.copyOf(probed));
    }

    /** Whether the method calls park(), parkNanos(long) or parkUntil(long) of LockSupport. */
    private static boolean callsAParkWithout(ClassReader reader, String method) {
        boolean[] calls = {false};
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                if (!method.equals(name + descriptor)) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String callee, String calleeDescriptor, boolean isInterface) {
                        calls[0] |= owner.equals(LOCK_SUPPORT_INTERNAL) && PARKS_WITHOUT.contains(callee + calleeDescriptor);
                    }
                };
            }
        }, ClassReader.SKIP_FRAMES);
        return calls[0];
    }

    /** park*(blocker, ...), static, the blocker in local 0; or park*(...) with the thread's own blocker. */
    private static final class ParkProbe extends AdviceAdapter {
        private static final Method CURRENT_THREAD = new Method("currentThread", "()Ljava/lang/Thread;");
        private static final Method GET_BLOCKER = new Method("getBlocker", "(Ljava/lang/Thread;)Ljava/lang/Object;");
        private final boolean blockerArgument;
        private int start;
        private int blocker;
        private int owner;

        ParkProbe(MethodVisitor next, int access, String name, String descriptor, boolean blockerArgument) {
            super(Opcodes.ASM9, next, access, name, descriptor);
            this.blockerArgument = blockerArgument;
        }

        @Override
        protected void onMethodEnter() {
            invokeStatic(Type.getType(System.class), NANO_TIME);
            start = newLocal(Type.LONG_TYPE);
            storeLocal(start);
            if (blockerArgument) {
                loadArg(0);
            } else {
                invokeStatic(Type.getType(Thread.class), CURRENT_THREAD);
                invokeStatic(Type.getObjectType(LOCK_SUPPORT_INTERNAL), GET_BLOCKER);
            }
            blocker = newLocal(Type.getType(Object.class));
            storeLocal(blocker);
            loadLocal(blocker);
            invokeStatic(PROBE, OWNER_OF);
            owner = newLocal(Type.getType(Thread.class));
            storeLocal(owner);
        }

        @Override
        protected void onMethodExit(int opcode) {
            if (opcode != ATHROW) {
                loadLocal(blocker);
                loadLocal(owner);
                loadLocal(start);
                invokeStatic(PROBE, PARKED);
            }
        }
    }

    /** VirtualThread.parkOnCarrierThread(timed, nanos). */
    private static final class PinnedProbe extends AdviceAdapter {
        private int start;

        PinnedProbe(MethodVisitor next, int access, String name, String descriptor) {
            super(Opcodes.ASM9, next, access, name, descriptor);
        }

        @Override
        protected void onMethodEnter() {
            invokeStatic(Type.getType(System.class), NANO_TIME);
            start = newLocal(Type.LONG_TYPE);
            storeLocal(start);
        }

        @Override
        protected void onMethodExit(int opcode) {
            if (opcode != ATHROW) {
                loadLocal(start);
                invokeStatic(PROBE, PINNED);
            }
        }
    }
}
