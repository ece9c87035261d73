package dev.jvmticli.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.jvmticli.probe.TraceProbe;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * The probes LatencyProbes adds, run for real: the rewritten class is defined in a loader of its own
 * (so the JVM verifies it against its stack map frames) and calls a Java stand-in for the probe class.
 */
class LatencyProbesTest {
    @Test
    void everyExitOfEveryProbedMethodIsReportedOnceAndTheClassVerifies() throws Exception {
        byte[] original;
        try (InputStream in = Sample.class.getResourceAsStream("Sample.class")) {
            original = in.readAllBytes();
        }
        LatencyProbes.Rewritten rewritten = LatencyProbes.rewrite(original, name -> !name.equals("calls") && !name.equals("callsOthers"),
                i -> (7 << 16) | i);
        assertEquals(List.of("loop", "reusesSlots", "catchesItsOwn", "throwsOut"),
                rewritten.methods().stream().map(LatencyProbes.ProbedMethod::name).toList(), "constructors and unwanted methods are left alone");
        Class<?> probed = new OneClassLoader(Sample.class.getName(), rewritten.bytes()).loadClass(Sample.class.getName());
        Object sample = probed.getConstructor().newInstance();
        TraceProbe.EXITS.clear();

        assertEquals(Sample.loop(10), call(probed, null, "loop", 10));
        assertEquals(0L, call(probed, sample, "reusesSlots", ""));
        assertEquals(3L, call(probed, sample, "reusesSlots", "abc"));
        assertEquals(-1, call(probed, null, "catchesItsOwn", "x"));
        assertEquals(42, call(probed, null, "catchesItsOwn", "42"));
        call(probed, null, "throwsOut", false);
        InvocationTargetException thrown = assertThrows(InvocationTargetException.class, () -> call(probed, null, "throwsOut", true));
        assertEquals(IllegalStateException.class, thrown.getCause().getClass(), "the exception goes on unchanged");

        int base = 7 << 16;
        assertEquals(List.of("returned " + base, "returned " + (base + 1), "returned " + (base + 1), "returned " + (base + 2),
                "returned " + (base + 2), "returned " + (base + 3), "threw " + (base + 3)), TraceProbe.EXITS);
    }

    /**
     * Depth 1: each call the probed method makes is reported under its callee's id, once, as returned
     * or as threw wherever the exception lands (the method's own handler, or out of the method, before
     * the method's own exit); the class verifies with the two new locals in every frame.
     */
    @Test
    void everyCallAProbedMethodMakesIsReportedOnceUnderItsCallee() throws Exception {
        byte[] original;
        try (InputStream in = Sample.class.getResourceAsStream("Sample.class")) {
            original = in.readAllBytes();
        }
        List<LatencyProbes.Callee> callees = new java.util.ArrayList<>();
        LatencyProbes.Rewritten rewritten = LatencyProbes.rewrite(original, name -> name.equals("callsOthers"), i -> 7 + i, (caller, callee) -> {
            assertEquals(0, caller);
            if (!callees.contains(callee)) {
                callees.add(callee);
            }
            return 100 + callees.indexOf(callee);
        });
        assertEquals(List.of(new LatencyProbes.Callee("java/lang/String", "length", "()I"),
                new LatencyProbes.Callee("java/lang/Integer", "parseInt", "(Ljava/lang/String;)I"),
                new LatencyProbes.Callee("dev/jvmticli/instrument/Sample", "throwsOut", "(Z)V")), callees);
        Class<?> probed = new OneClassLoader(Sample.class.getName(), rewritten.bytes()).loadClass(Sample.class.getName());
        TraceProbe.EXITS.clear();

        assertEquals(14, call(probed, null, "callsOthers", "12"));
        assertEquals(-1, call(probed, null, "callsOthers", "x"));
        InvocationTargetException thrown = assertThrows(InvocationTargetException.class, () -> call(probed, null, "callsOthers", "500"));
        assertEquals(IllegalStateException.class, thrown.getCause().getClass(), "the exception goes on unchanged");

        assertEquals(List.of("returned 100", "returned 101", "returned 102", "returned 7",
                "returned 100", "threw 101", "returned 102", "returned 7",
                "returned 100", "returned 101", "threw 102", "threw 7"), TraceProbe.EXITS);
    }

    /**
     * Depth 1 on a class file without stack maps (version 50 with its StackMapTables taken out: the
     * JVM verifies it by type inference, as HotSpot hands out a JDK class it did not verify, which
     * has none either): the exception a callee throws into the method's own handler is reported there,
     * under that callee, as in a class with frames.
     */
    @Test
    void aCallThatThrowsIntoItsCallersHandlerIsReportedUnderItsCalleeWithoutStackMaps() throws Exception {
        byte[] original;
        try (InputStream in = Sample.class.getResourceAsStream("Sample.class")) {
            original = withoutStackMaps(in.readAllBytes());
        }
        List<LatencyProbes.Callee> callees = new java.util.ArrayList<>();
        LatencyProbes.Rewritten rewritten = LatencyProbes.rewrite(original, name -> name.equals("callsOthers"), i -> 7 + i, (caller, callee) -> {
            if (!callees.contains(callee)) {
                callees.add(callee);
            }
            return 100 + callees.indexOf(callee);
        });
        Class<?> probed = new OneClassLoader(Sample.class.getName(), rewritten.bytes()).loadClass(Sample.class.getName());
        TraceProbe.EXITS.clear();

        assertEquals(-1, call(probed, null, "callsOthers", "x"));
        InvocationTargetException thrown = assertThrows(InvocationTargetException.class, () -> call(probed, null, "callsOthers", "500"));
        assertEquals(IllegalStateException.class, thrown.getCause().getClass(), "the exception goes on unchanged");

        assertEquals(List.of("returned 100", "threw 101", "returned 102", "returned 7",
                "returned 100", "returned 101", "threw 102", "threw 7"), TraceProbe.EXITS);
    }

    /** The class file as version 50 without its stack map frames (a version 50 class may have none: the JVM then infers its types). */
    private static byte[] withoutStackMaps(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                super.visit(Opcodes.V1_6, access, name, signature, superName, interfaces);
            }
        }, ClassReader.SKIP_FRAMES);
        byte[] stripped = writer.toByteArray();
        assertEquals(-1, new String(stripped, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("StackMapTable"), "no stack maps left");
        return stripped;
    }

    @Test
    void theProbeClassDeclaresTheNativesTheAgentBinds() throws Exception {
        Class<?> probe = new OneClassLoader(ProbeClass.NAME.replace('/', '.'), ProbeClass.bytes()).loadClass(ProbeClass.NAME.replace('/', '.'));
        for (String name : List.of("returned", "threw")) {
            Method m = probe.getDeclaredMethod(name, int.class, long.class);
            assertEquals(java.lang.reflect.Modifier.PUBLIC | java.lang.reflect.Modifier.STATIC | java.lang.reflect.Modifier.NATIVE,
                    m.getModifiers());
        }
    }

    private static Object call(Class<?> type, Object target, String name, Object argument) throws Exception {
        for (Method m : type.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m.invoke(target, argument);
            }
        }
        throw new AssertionError(name);
    }

    /** Defines one class from bytes (verified, as any class off the boot path); the rest from its parent. */
    private static final class OneClassLoader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        OneClassLoader(String name, byte[] bytes) {
            super(LatencyProbesTest.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
            if (!className.equals(name)) {
                return super.loadClass(className, resolve);
            }
            synchronized (getClassLoadingLock(className)) {
                Class<?> loaded = findLoadedClass(className);
                return loaded != null ? loaded : defineClass(className, bytes, 0, bytes.length);
            }
        }
    }
}
