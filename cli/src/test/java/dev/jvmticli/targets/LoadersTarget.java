package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Class loaders whose fate the target knows, each named and each defining the same two classes
 * ({@link Plugin} and {@link Helper}, initialized: Plugin's singleton is held by its own static
 * field): {@value #LIVE} "live-N" loaders whose Plugin instance the target keeps in {@link #PLUGINS};
 * {@value #DROPPED} "dropped-N" loaders nothing references any more (no collection runs in a quiet
 * target with this little garbage); and one "leaked" loader whose Plugin class stays in the static
 * map {@link #REGISTRY} of a class of the application's loader, the redeploy leak: nothing else
 * uses it.
 */
public final class LoadersTarget {
    static final int LIVE = 3, DROPPED = 4;
    static final List<Object> PLUGINS = new ArrayList<>();
    static final Map<String, Class<?>> REGISTRY = new HashMap<>();

    /** Defined again by each loader. */
    public static final class Plugin implements Runnable {
        static final Plugin INSTANCE = new Plugin();
        final Helper helper = new Helper();

        @Override
        public void run() {
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
        TargetMain.serve();
    }
}
