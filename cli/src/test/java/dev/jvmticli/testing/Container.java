package dev.jvmticli.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;

/**
 * A target JVM in a container of its own: new pid and mount namespaces (unshare, from
 * util-linux) with a private tmpfs on /tmp, so the JVM is pid 1 there and its /tmp is not ours.
 */
public final class Container {
    private Container() {
    }

    /**
     * The test classes, copied once outside /tmp: the container mounts its own /tmp, which would
     * hide a checkout (and so its test classes) that lives under /tmp.
     */
    public static Path classPath() {
        return ClassesCopy.PATH;
    }

    private static final class ClassesCopy {
        static final Path PATH = OtherUser.readableCopy(TargetJvm.testClasses());

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> OtherUser.delete(PATH)));
        }
    }

    /** The wrapper for {@link TargetJvm#startWrapped}; skips the test unless this is root. */
    public static List<String> wrapper() {
        assumeTrue(OtherUser.isRoot(), "unshare needs root");
        return List.of("unshare", "--pid", "--mount", "--fork", "--kill-child", "--propagation", "private",
                "sh", "-c", "mount -t tmpfs -o mode=1777 tmpfs /tmp && cd /tmp && exec \"$0\" \"$@\"");
    }
}
