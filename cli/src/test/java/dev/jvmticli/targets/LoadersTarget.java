package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * Class loaders whose fate the target knows, each named and each defining the same two classes
 * ({@link Plugin} and {@link Helper}, initialized: Plugin's singleton is held by its own static
 * field): {@value #LIVE} "live-N" loaders whose Plugin instance the target keeps in {@link #PLUGINS};
 * {@value #DROPPED} "dropped-N" loaders nothing references any more (no collection runs in a quiet
 * target with this little garbage); and one "leaked" loader whose Plugin class stays in the static
 * map {@link #REGISTRY} of a class of the application's loader, the redeploy leak: nothing else
 * uses it.
 *
 * <p>From JDK 21, two more loaders whose Plugin class stays in {@link #REGISTRY} too, whose code
 * only virtual threads run, called through a {@link Method} by lambdas of this class (so no instance
 * of their classes is held from outside their own static fields): "virtual-parked"'s
 * {@link Plugin#park} by {@value #VIRTUAL_PARKED} parked virtual threads, off their carriers (one
 * started alone, in the JDK's root thread container, one by a thread-per-task executor, a container of
 * its own), and "virtual-spinning"'s {@link Plugin#spin} by one virtual thread on its carrier. Written
 * in Java 11 (the Debian roots' targets), so virtual threads are made through reflection.
 */
public final class LoadersTarget {
    static final int LIVE = 3, DROPPED = 4, VIRTUAL_PARKED = 2;
    static final List<Object> PLUGINS = new ArrayList<>();
    static final Map<String, Class<?>> REGISTRY = new HashMap<>();
    /** The virtual threads and the executor that made one, kept: a parked virtual thread is only as reachable as what holds it. */
    static final List<Object> KEPT = new ArrayList<>();

    /** Defined again by each loader. */
    public static final class Plugin implements Runnable {
        static final Plugin INSTANCE = new Plugin();
        final Helper helper = new Helper();

        @Override
        public void run() {
        }

        /** Parks for good: a virtual thread running it leaves its carrier. */
        public static void park() {
            while (true) {
                LockSupport.park();
            }
        }

        /** Spins for good: a virtual thread running it stays on its carrier. */
        public static void spin() {
            while (true) {
                Thread.onSpinWait();
            }
        }
    }

    public static final class Helper {
    }

    /** Defines Plugin and Helper itself, from the application's class files; everything else from its parent. */
    static final class PluginLoader extends ClassLoader {
        PluginLoader(String name) {
            super(name, LoadersTarget.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(Plugin.class.getName()) && !name.equals(Helper.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    static Class<?> pluginOf(String loaderName) throws Exception {
        Class<?> plugin = Class.forName(Plugin.class.getName(), true, new PluginLoader(loaderName));
        if (plugin.getClassLoader().getClass() != PluginLoader.class) {
            throw new IllegalStateException("Plugin was not defined by its own loader");
        }
        return plugin;
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < LIVE; i++) {
            PLUGINS.add(pluginOf("live-" + i).getDeclaredConstructor().newInstance());
        }
        for (int i = 0; i < DROPPED; i++) {
            ((Runnable) pluginOf("dropped-" + i).getDeclaredConstructor().newInstance()).run();
        }
        REGISTRY.put("handler", pluginOf("leaked"));
        if (Runtime.version().feature() >= 21) {
            runOnVirtualThreads();
        }
        TargetMain.serve();
    }

    static void runOnVirtualThreads() throws Exception {
        Class<?> parkedPlugin = pluginOf("virtual-parked");
        Class<?> spinningPlugin = pluginOf("virtual-spinning");
        REGISTRY.put("virtual-parked", parkedPlugin);
        REGISTRY.put("virtual-spinning", spinningPlugin);
        Method park = parkedPlugin.getMethod("park");
        Method spin = spinningPlugin.getMethod("spin");
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Method start = builder.getMethod("start", Runnable.class);
        Thread alone = (Thread) start.invoke(Thread.class.getMethod("ofVirtual").invoke(null), call(park));
        Thread spinning = (Thread) start.invoke(Thread.class.getMethod("ofVirtual").invoke(null), call(spin));
        ThreadFactory virtual = (ThreadFactory) builder.getMethod("factory").invoke(Thread.class.getMethod("ofVirtual").invoke(null));
        List<Thread> made = new ArrayList<>();
        ThreadFactory recording = task -> {
            Thread thread = virtual.newThread(task);
            made.add(thread);
            return thread;
        };
        Executor executor = (Executor) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class).invoke(null, recording);
        executor.execute(call(park));
        KEPT.addAll(List.of(alone, spinning, made.get(0), executor));
        awaitIn(alone, "park", Thread.State.WAITING);
        awaitIn(made.get(0), "park", Thread.State.WAITING);
        awaitIn(spinning, "spin", Thread.State.RUNNABLE);
    }

    /** A task of this class that calls the static method. */
    static Runnable call(Method method) {
        return () -> {
            try {
                method.invoke(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    /** Waits until the thread is in the state with Plugin's method on its stack, or fails after 10 s. */
    static void awaitIn(Thread thread, String method, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (thread.getState() != state || Arrays.stream(thread.getStackTrace())
                .noneMatch(f -> f.getClassName().equals(Plugin.class.getName()) && f.getMethodName().equals(method))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(thread + " never ran Plugin." + method + " in " + state + ", is " + thread.getState());
            }
            Thread.sleep(5);
        }
    }
}
