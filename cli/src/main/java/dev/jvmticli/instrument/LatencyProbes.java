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
 *
 * <p>With callees (depth 1), every method call a probed method makes is timed too, under an id per
 * distinct callee: {@code calleeStart = System.nanoTime()} and {@code pending = id} before the call,
 * {@code TraceProbe.returned(id, calleeStart)} and {@code pending = -1} after it. A call that ends by
 * an exception is reported where the exception lands: at the entry of each of the method's own
 * handlers (after its stack map frame, or before its first instruction in a method without them),
 * and in the whole-body handler, {@code if (pending >= 0) TraceProbe.threw(pending, calleeStart)}.
 * The two locals are new ones too, set at entry, so every frame holds them.
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

    /** A call a probed method makes, timed under its own id: the callee's class (internal name), name and descriptor. */
    public record Callee(String owner, String name, String descriptor) {
    }

    /** Gives each callee of a probed method (its index among the class's probed methods) its id. */
    public interface CalleeIds {
        int idOf(int caller, Callee callee);
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
        return rewrite(classFile, wanted, idOf, null);
    }

    /** As {@link #rewrite(byte[], Predicate, java.util.function.IntUnaryOperator)}, each probed method's calls timed too (calleeIds not null). */
    public static Rewritten rewrite(byte[] classFile, Predicate<String> wanted, java.util.function.IntUnaryOperator idOf, CalleeIds calleeIds) {
        Set<String> skipped = new HashSet<>();
        List<TooLarge> tooLarge = new ArrayList<>();
        while (true) {
            List<ProbedMethod> probed = new ArrayList<>();
            ClassReader reader = new ClassReader(classFile);
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            reader.accept(new Probes(writer, wanted, skipped, probed, idOf, calleeIds), ClassReader.EXPAND_FRAMES);
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
        private final CalleeIds calleeIds;
        private boolean framed;

        Probes(ClassVisitor next, Predicate<String> wanted, Set<String> skipped, List<ProbedMethod> probed,
               java.util.function.IntUnaryOperator idOf, CalleeIds calleeIds) {
            super(Opcodes.ASM9, next);
            this.wanted = wanted;
            this.skipped = skipped;
            this.probed = probed;
            this.idOf = idOf;
            this.calleeIds = calleeIds;
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
            int caller = probed.size();
            int id = idOf.applyAsInt(caller);
            probed.add(new ProbedMethod(name, descriptor, id));
            return new Probe(next, access, name, descriptor, id, framed, calleeIds == null ? null : callee -> calleeIds.idOf(caller, callee));
        }
    }

    private static final class Probe extends AdviceAdapter {
        private final int id;
        private final boolean framed;
        private final java.util.function.ToIntFunction<Callee> calleeIds; // null: the calls are not timed
        private final Label bodyStart = new Label();
        private final Set<Label> handlers = new HashSet<>();
        private int start;
        private int calleeStart;
        private int pending;
        private boolean atHandler;
        private boolean emitting;

        Probe(MethodVisitor next, int access, String name, String descriptor, int id, boolean framed,
              java.util.function.ToIntFunction<Callee> calleeIds) {
            super(Opcodes.ASM9, next, access, name, descriptor);
            this.id = id;
            this.framed = framed;
            this.calleeIds = calleeIds;
        }

        @Override
        protected void onMethodEnter() {
            emitting = true;
            invokeStatic(Type.getType(System.class), NANO_TIME);
            start = newLocal(Type.LONG_TYPE);
            storeLocal(start);
            if (calleeIds != null) {
                push(0L);
                calleeStart = newLocal(Type.LONG_TYPE);
                storeLocal(calleeStart);
                push(-1);
                pending = newLocal(Type.INT_TYPE);
                storeLocal(pending);
            }
            emitting = false;
            visitLabel(bodyStart);
        }

        @Override
        protected void onMethodExit(int opcode) {
            if (opcode != ATHROW) {
                probe(RETURNED);
            }
        }

        @Override
        public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
            handlers.add(handler);
            super.visitTryCatchBlock(start, end, handler, type);
        }

        @Override
        public void visitLabel(Label label) {
            super.visitLabel(label);
            if (calleeIds != null && !emitting && handlers.contains(label)) {
                atHandler = true; // the check goes after the handler's frame, or before its first instruction when it has none
            }
        }

        @Override
        public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
            super.visitFrame(type, numLocal, local, numStack, stack);
            if (atHandler && !emitting) {
                atHandler = false;
                Object[] locals = local.clone();
                Object[] stackItems = stack.clone();
                calleeThrew(() -> super.visitFrame(type, numLocal, locals.clone(), numStack, stackItems.clone()));
            }
        }

        /**
         * Before each of the method's own instructions: at a handler that had no frame (a class file
         * before version 50, or one without stack maps, as HotSpot hands out a JDK class it did not
         * verify), the check goes here, with no frame after it either.
         */
        private void instruction() {
            if (atHandler && !emitting) {
                atHandler = false;
                calleeThrew(null);
            }
        }

        @Override
        public void visitInsn(int opcode) {
            instruction();
            super.visitInsn(opcode);
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            instruction();
            super.visitIntInsn(opcode, operand);
        }

        @Override
        public void visitVarInsn(int opcode, int varIndex) {
            instruction();
            super.visitVarInsn(opcode, varIndex);
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            instruction();
            super.visitTypeInsn(opcode, type);
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            instruction();
            super.visitFieldInsn(opcode, owner, name, descriptor);
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, org.objectweb.asm.Handle bootstrap, Object... arguments) {
            instruction();
            super.visitInvokeDynamicInsn(name, descriptor, bootstrap, arguments);
        }

        @Override
        public void visitJumpInsn(int opcode, Label label) {
            instruction();
            super.visitJumpInsn(opcode, label);
        }

        @Override
        public void visitLdcInsn(Object value) {
            instruction();
            super.visitLdcInsn(value);
        }

        @Override
        public void visitIincInsn(int varIndex, int increment) {
            instruction();
            super.visitIincInsn(varIndex, increment);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
            instruction();
            super.visitTableSwitchInsn(min, max, dflt, labels);
        }

        @Override
        public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
            instruction();
            super.visitLookupSwitchInsn(dflt, keys, labels);
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
            instruction();
            super.visitMultiANewArrayInsn(descriptor, numDimensions);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            instruction();
            if (calleeIds == null || emitting) {
                super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
                return;
            }
            int callee = calleeIds.applyAsInt(new Callee(owner, name, descriptor));
            emitting = true;
            push(callee);
            storeLocal(pending);
            invokeStatic(Type.getType(System.class), NANO_TIME);
            storeLocal(calleeStart);
            emitting = false;
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            emitting = true;
            push(callee);
            loadLocal(calleeStart);
            invokeStatic(PROBE, RETURNED);
            push(-1);
            storeLocal(pending);
            emitting = false;
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            Label handler = new Label();
            visitTryCatchBlock(bodyStart, handler, handler, "java/lang/Throwable");
            emitting = true;
            visitLabel(handler);
            Runnable frame = () -> {
                // no local but the probes' is needed here, so none is promised: the method's own locals may change type
                visitFrame(Opcodes.F_NEW, 0, new Object[0], 1, new Object[] {"java/lang/Throwable"});
            };
            if (framed) {
                frame.run();
            }
            if (calleeIds != null) {
                calleeThrew(framed ? frame : null);
            }
            probe(THREW);
            throwException();
            emitting = false;
            super.visitMaxs(maxStack, maxLocals);
        }

        /** {@code if (pending >= 0) { TraceProbe.threw(pending, calleeStart); pending = -1; }}, the frame again after it (when framed). */
        private void calleeThrew(Runnable frameAgain) {
            boolean wasEmitting = emitting;
            emitting = true;
            Label done = new Label();
            loadLocal(pending);
            visitJumpInsn(IFLT, done);
            loadLocal(pending);
            loadLocal(calleeStart);
            invokeStatic(PROBE, THREW);
            push(-1);
            storeLocal(pending);
            visitLabel(done);
            if (frameAgain != null) {
                frameAgain.run();
            }
            emitting = wasEmitting;
        }

        private void probe(Method which) {
            boolean wasEmitting = emitting;
            emitting = true;
            push(id);
            loadLocal(start);
            invokeStatic(PROBE, which);
            emitting = wasEmitting;
        }
    }
}
