package dev.jvmticli.testing;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One target JVM of the same main class on every installed JDK, shared by the tests of a class:
 * registered as a static {@code @RegisterExtension} field, it starts them before the class's first
 * test and stops them after its last.
 */
public final class TargetsPerJdk implements BeforeAllCallback, AfterAllCallback {
    private final Class<?> mainClass;
    private final Map<Jdks.Jdk, TargetJvm> targets = new TreeMap<>((a, b) -> a.home().compareTo(b.home()));

    private TargetsPerJdk(Class<?> mainClass) {
        this.mainClass = mainClass;
    }

    public static TargetsPerJdk of(Class<?> mainClass) {
        return new TargetsPerJdk(mainClass);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Jdks.all().forEach(jdk -> targets.put(jdk, TargetJvm.start(jdk, mainClass)));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        targets.values().forEach(TargetJvm::close);
        targets.clear();
    }

    public TargetJvm get(Jdks.Jdk jdk) {
        return targets.get(jdk);
    }
}
