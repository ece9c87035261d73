package dev.jvmticli.instrument;

import java.util.HashSet;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Adds the {@code exceptions} probe to {@code java.lang.Throwable}: before each return of each of its
 * constructors, {@code TraceProbe.created(id, this)}. By then the object is initialized, its class is
 * the one being created and its message is set. A constructor that hands over to another of
 * Throwable's ({@code this(...)}) is left alone, so each Throwable is seen once. The probe adds no
 * local variable and no branch: the class's stack map frames stay as they are.
 */
public final class ExceptionProbes {
    /** The class the probe goes in. */
    public static final String THROWABLE = "java/lang/Throwable";

    /** The class file with its probes, and how many constructors got one. */
    public record Rewritten(byte[] bytes, int constructors) {
    }

    private ExceptionProbes() {
    }

    public static Rewritten rewrite(byte[] throwable, int id) {
        Set<String> delegating = delegatingConstructors(throwable);
        ClassReader reader = new ClassReader(throwable);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        int[] probed = {0};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                if (!name.equals(THROWABLE)) {
                    throw new IllegalArgumentException("not " + THROWABLE + ": " + name);
                }
                super.visit(version, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                if (!name.equals("<init>") || delegating.contains(descriptor)) {
                    return next;
                }
                probed[0]++;
                return new MethodVisitor(Opcodes.ASM9, next) {
                    @Override
                    public void visitInsn(int opcode) {
                        if (opcode == Opcodes.RETURN) {
                            super.visitLdcInsn(id);
                            super.visitVarInsn(Opcodes.ALOAD, 0);
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, ProbeClass.NAME, ProbeClass.CREATED, ProbeClass.CREATED_DESCRIPTOR, false);
                        }
                        super.visitInsn(opcode);
                    }
                };
            }
        }, 0);
        return new Rewritten(writer.toByteArray(), probed[0]);
    }

    /** The descriptors of the constructors that call another of Throwable's. */
    private static Set<String> delegatingConstructors(byte[] throwable) {
        Set<String> delegating = new HashSet<>();
        new ClassReader(throwable).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                if (!name.equals("<init>")) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String methodDescriptor, boolean isInterface) {
                        if (opcode == Opcodes.INVOKESPECIAL && owner.equals(THROWABLE) && method.equals("<init>")) {
                            delegating.add(descriptor);
                        }
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return delegating;
    }
}
