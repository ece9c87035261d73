package dev.jvmticli.testing;

import java.util.Map;
import java.util.TreeMap;

/** One target JVM of the same main class on every installed JDK, for a test class to share. */
public final class TargetsPerJdk implements AutoCloseable {
    private final Map<Jdks.Jdk, TargetJvm> targets = new TreeMap<>((a, b) -> a.home().compareTo(b.home()));

    private TargetsPerJdk() {
    }

    public static TargetsPerJdk start(Class<?> mainClass) {
        TargetsPerJdk started = new TargetsPerJdk();
        Jdks.all().forEach(jdk -> started.targets.put(jdk, TargetJvm.start(jdk, mainClass)));
        return started;
    }

    public TargetJvm get(Jdks.Jdk jdk) {
        return targets.get(jdk);
    }

    @Override
    public void close() {
        targets.values().forEach(TargetJvm::close);
    }
}
