package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.concurrent.CountDownLatch;

/**
 * Names written to attack the terminal of whoever reads a thread dump: threads whose names hold
 * ESC sequences, BEL, CR, NUL, C1 controls (CSI among them), newlines forging a jstack header and
 * a frame line, a table's {@code |}, a tab, a backslash and DEL; two of them deadlocked over
 * monitors whose class (defined from bytes at run time: the JVM allows any character but
 * {@code . ; [ /} in a class name) is named the same way, a third contending for one of those
 * monitors.
 */
public final class HostileNamesTarget {
    /** A newline, a forged header and frame line, a table cell's end, a tab, a backslash, DEL, NUL. */
    public static final String FORGING = "forge\n\"main\" #1 prio=5 os_prio=0 tid=0x1 nid=0x1 runnable\n\tat fake.Frame.run(Fake.java:1)"
            + "\r| cell | tab\there back\\slash del\u007f nul\u0000";
    /** ESC sequences (colour, clear screen, window title with BEL), C1's CSI and NEL. */
    public static final String TERMINAL = "term\u001b[31mred\u001b[2J\u001b]0;owned\u0007 c1\u009b31m\u0085end";
    /** The lock class's simple name: ESC c (a terminal's reset), C1's CSI and a newline; no '[' or ';', which a class name cannot hold. */
    public static final String LOCK_CLASS = "Lock\u001bc\u009b2J\nClass";

    private HostileNamesTarget() {
    }

    public static void main(String[] args) throws Exception {
        Object first = newInstance(defineClass("dev.jvmticli.targets." + LOCK_CLASS));
        Object second = newInstance(defineClass("dev.jvmticli.targets." + LOCK_CLASS + "2"));
        CountDownLatch both = new CountDownLatch(2);
        Thread a = TargetMain.start(FORGING, () -> lockBoth(first, second, both));
        Thread b = TargetMain.start(TERMINAL, () -> lockBoth(second, first, both));
        TargetMain.awaitState(a, Thread.State.BLOCKED);
        TargetMain.awaitState(b, Thread.State.BLOCKED);
        Thread third = TargetMain.start(TERMINAL + " waiter", () -> {
            synchronized (first) {
                sink = 1;
            }
        });
        TargetMain.awaitState(third, Thread.State.BLOCKED);
        TargetMain.start(FORGING + " sleeper", () -> {
            while (true) {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        TargetMain.serve();
    }

    static volatile int sink;

    private static void lockBoth(Object outer, Object inner, CountDownLatch both) {
        synchronized (outer) {
            TargetMain.arrive(both);
            synchronized (inner) {
                sink = 2;
            }
        }
    }

    /** An empty public class of that binary name, defined by a loader of its own. */
    private static Class<?> defineClass(String binaryName) throws IOException {
        byte[] bytes = emptyClass(binaryName.replace('.', '/'));
        return new ClassLoader(HostileNamesTarget.class.getClassLoader()) {
            Class<?> define() {
                return defineClass(binaryName, bytes, 0, bytes.length);
            }
        }.define();
    }

    /** A class file (Java 8's format) of a class with no members, extending Object. */
    private static byte[] emptyClass(String internalName) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0xCAFEBABE);
        out.writeShort(0);
        out.writeShort(52);
        out.writeShort(5); // constant pool: 4 entries, counted from 1
        out.writeByte(1);
        out.writeUTF(internalName); // #1 (modified UTF-8, as class files have it)
        out.writeByte(7);
        out.writeShort(1); // #2 this class
        out.writeByte(1);
        out.writeUTF("java/lang/Object"); // #3
        out.writeByte(7);
        out.writeShort(3); // #4 its super class
        out.writeShort(0x0021); // public super
        out.writeShort(2);
        out.writeShort(4);
        out.writeShort(0); // interfaces
        out.writeShort(0); // fields
        out.writeShort(0); // methods
        out.writeShort(0); // attributes
        return bytes.toByteArray();
    }

    /** An instance of a class without a constructor, as serialization makes one. */
    private static Object newInstance(Class<?> type) throws ReflectiveOperationException {
        Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        return unsafeClass.getMethod("allocateInstance", Class.class).invoke(theUnsafe.get(null), type);
    }
}
