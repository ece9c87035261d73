package dev.jvmticli.instrument;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.AdviceAdapter;
import org.objectweb.asm.commons.Method;

/**
 * Adds latency probes to the methods of one class file whose names a predicate accepts: at entry
 * {@code long start = System.nanoTime()}, before each return {@code TraceProbe.returned(id, start)},
 * and around the whole body a handler for any Throwable that calls {@code TraceProbe.threw(id, start)}
 * and throws it on. The handler comes after the method's own, so an exception the method catches
 * itself is no exit. {@code start} is a new local variable: ASM's LocalVariablesSorter moves the
 * method's own locals past it and writes it into every stack map frame, so no frame is computed
 * from a type hierarchy the CLI does not have. Constructors, static initializers, abstract, native,
 * bridge and synthetic (lambda body) methods are left alone.
 */
public final class LatencyProbes {
    private static final Type PROBE = Type.getObjectType(ProbeClass.NAME);
    private static final Method RETURNED = new Method(ProbeClass.RETURNED, ProbeClass.DESCRIPTOR);
    private static final Method THREW = new Method(ProbeClass.THREW, ProbeClass.DESCRIPTOR);
    private static final Method NANO_TIME = new Method("nanoTime", "()J");

    /** A method given a probe: its name, its descriptor, and the id its probe reports. */
    public record ProbedMethod(String name, String descriptor, int id) {
    }

    /** A method left alone because, with its probe, it would pass the JVM's 64 KiB of bytecode. */
    public record TooLarge(String name, String descriptor) {
    }

    /** The class file with its probes, the methods probed, and those too large to be. */
    public record Rewritten(byte[] bytes, List<ProbedMethod> methods, List<TooLarge> tooLarge) {
    }

    private LatencyProbes() {
    }

    /**
     * Probes the methods whose names wanted accepts; their ids are idOf(0), idOf(1), ... in the
     * class file's order. A class with no such method comes back with no methods (and its bytes unused).
     */
    public static Rewritten rewrite(byte[] classFile, Predicate<String> wanted, java.util.function.IntUnaryOperator idOf) {
        Set<String> skipped = new HashSet<>();
        List<TooLarge> tooLarge = new ArrayList<>();
        while (true) {
            List<ProbedMethod> probed = new ArrayList<>();
            ClassReader reader = new ClassReader(classFile);
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            reader.accept(new Probes(writer, wanted, skipped, probed, idOf), ClassReader.EXPAND_FRAMES);
            try {
                return new Rewritten(writer.toByteArray(), List.copyOf(probed), List.copyOf(tooLarge));
            } catch (MethodTooLargeException e) {
                if (!skipped.add(e.getMethodName() + e.getDescriptor())) {
                    throw e;
                }
                tooLarge.add(new TooLarge(e.getMethodName(), e.getDescriptor()));
            }
        }
    }

    private static final class Probes extends ClassVisitor {
        private final Predicate<String> wanted;
        private final Set<String> skipped;
        private final List<ProbedMethod> probed;
        private final java.util.function.IntUnaryOperator idOf;
        private boolean framed;

        Probes(ClassVisitor next, Predicate<String> wanted, Set<String> skipped, List<ProbedMethod> probed,
               java.util.function.IntUnaryOperator idOf) {
            super(Opcodes.ASM9, next);
            this.wanted = wanted;
            this.skipped = skipped;
            this.probed = probed;
            this.idOf = idOf;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            framed = (version & 0xFFFF) >= Opcodes.V1_6;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            int leftAlone = Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_BRIDGE | Opcodes.ACC_SYNTHETIC;
            if ((access & leftAlone) != 0 || name.startsWith("<") || !wanted.test(name) || skipped.contains(name + descriptor)) {
                return next;
            }
            int id = idOf.applyAsInt(probed.size());
            probed.add(new ProbedMethod(name, descriptor, id));
            return new Probe(next, access, name, descriptor, id, framed);
        }
    }

    private static final class Probe extends AdviceAdapter {
        private final int id;
        private final boolean framed;
        private final Label bodyStart = new Label();
        private int start;

        Probe(MethodVisitor next, int access, String name, String descriptor, int id, boolean framed) {
            super(Opcodes.ASM9, next, access, name, descriptor);
            this.id = id;
            this.framed = framed;
        }

        @Override
        protected void onMethodEnter() {
            invokeStatic(Type.getType(System.class), NANO_TIME);
            start = newLocal(Type.LONG_TYPE);
            storeLocal(start);
            visitLabel(bodyStart);
        }

        @Override
        protected void onMethodExit(int opcode) {
            if (opcode != ATHROW) {
                probe(RETURNED);
            }
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            Label handler = new Label();
            visitTryCatchBlock(bodyStart, handler, handler, "java/lang/Throwable");
            visitLabel(handler);
            if (framed) {
                // no local but start is needed here, so none is promised: the method's own locals may change type
                visitFrame(Opcodes.F_NEW, 0, new Object[0], 1, new Object[] {"java/lang/Throwable"});
            }
            probe(THREW);
            throwException();
            super.visitMaxs(maxStack, maxLocals);
        }

        private void probe(Method which) {
            push(id);
            loadLocal(start);
            invokeStatic(PROBE, which);
        }
    }
}
