package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Instances of one class per way of being held, each count known: a static map ({@link ByStatic}),
 * a thread-local of the thread "session-worker" ({@link ByThreadLocal}), a local variable of
 * {@link #holdInLocal} on the thread "request-handler" ({@link ByLocal}), a listener list inside an
 * object held from a static field ({@link ByListener}), JNI global references made by a native
 * library whose path is the first argument ({@link ByJniGlobal}), and garbage nothing holds
 * ({@link Dropped}). The holders implement an interface with a field of its own, which moves the
 * JVMTI field indexes of theirs. Command {@code counts} prints what each holds.
 */
public final class PathsTarget implements PathsTagged {
    static final int STATIC = 3000, THREAD_LOCAL = 700, LOCAL = 500, LISTENERS = 200, JNI_GLOBALS = 50, DROPPED = 1000;
    static final Map<Integer, ByStatic> CACHE = new HashMap<>();
    static final EventBus BUS = new EventBus();
    static final ThreadLocal<List<ByThreadLocal>> SESSION = new ThreadLocal<>();
    static volatile Object sink;
    static final CountDownLatch FILLED = new CountDownLatch(2);

    public static final class ByStatic {
        final byte[] payload = new byte[1024];
    }

    public static final class ByThreadLocal {
    }

    public static final class ByLocal {
    }

    public static final class ByListener implements Runnable {
        @Override
        public void run() {
        }
    }

    public static final class ByJniGlobal {
    }

    public static final class Dropped {
    }

    /** A holder whose list is its second field, after one of an interface's. */
    static final class EventBus implements PathsTagged {
        final String name = "bus";
        final List<Runnable> listeners = new ArrayList<>();
    }

    private static native void keepGlobal(Object object);

    static void fillThreadLocal() {
        List<ByThreadLocal> list = new ArrayList<>();
        for (int i = 0; i < THREAD_LOCAL; i++) {
            list.add(new ByThreadLocal());
        }
        SESSION.set(list);
        FILLED.countDown();
    }

    static void holdInLocal() {
        List<ByLocal> held = new ArrayList<>();
        for (int i = 0; i < LOCAL; i++) {
            held.add(new ByLocal());
        }
        FILLED.countDown();
        while (!Thread.currentThread().isInterrupted()) {
            LockSupport.park();
        }
        Reference.reachabilityFence(held);
    }

    public static void main(String[] args) throws Exception {
        System.load(args[0]);
        for (int i = 0; i < STATIC; i++) {
            CACHE.put(i, new ByStatic());
        }
        for (int i = 0; i < LISTENERS; i++) {
            BUS.listeners.add(new ByListener());
        }
        for (int i = 0; i < JNI_GLOBALS; i++) {
            keepGlobal(new ByJniGlobal());
        }
        for (int i = 0; i < DROPPED; i++) {
            sink = new Dropped();
        }
        sink = null;
        TargetMain.start("session-worker", () -> {
            fillThreadLocal();
            while (!Thread.currentThread().isInterrupted()) {
                LockSupport.park();
            }
        });
        TargetMain.start("request-handler", PathsTarget::holdInLocal);
        FILLED.await();
        TargetMain.serve(line -> line.equals("counts")
                ? "static=" + CACHE.size() + " listeners=" + BUS.listeners.size() + " threadLocal=" + THREAD_LOCAL + " local=" + LOCAL
                    + " jniGlobals=" + JNI_GLOBALS
                : "unknown command " + line);
    }
}

/** An interface with a field: the fields of the classes that implement it come after its own in JVMTI's numbering. */
interface PathsTagged {
    Object TAG = new Object();
}
