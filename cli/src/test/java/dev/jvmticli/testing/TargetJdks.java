package dev.jvmticli.testing;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every JDK a test runs its target on, each feature version once, 11 to 25: this machine's (OpenJDK
 * 17, Temurin 25), and those of the Debian roots that this machine lacks (Debian 11's OpenJDK 11,
 * Debian 13's OpenJDK 21), each JVM in its root and a mount namespace of its own. The roots' only
 * where the tests run as root, which makes them ({@link DebianRoots}).
 */
public final class TargetJdks {
    private TargetJdks() {
    }

    /** A JDK of this machine (root null), or one of a Debian root. */
    public record TargetJdk(Jdks.Jdk jdk, DebianRoots.RootJdk root) {
        public int feature() {
            return jdk.feature();
        }

        /** The JDK the CLI runs on against the target: the target's own where it is this machine's, else the one running the tests. */
        public Jdks.Jdk cliJdk() {
            return root == null ? jdk : Jdks.current();
        }

        /** Starts mainClass (for a root: compiled for Java 11 into it) and waits for its READY line. */
        public TargetJvm start(Class<?> mainClass, List<String> jvmOptions, String... args) {
            if (root == null) {
                return TargetJvm.start(jdk, mainClass, jvmOptions, args);
            }
            return TargetJvm.startWrapped(DebianRoots.ownMountNamespace(root.root()), classes(mainClass), jdk, mainClass, jvmOptions, args);
        }

        /** Starts mainClass in start-up mode: the agent loaded by -agentpath with the options given (v=7,exception-events). */
        public TargetJvm startWithAgent(Class<?> mainClass, String agentOptions) {
            if (root == null) {
                return start(mainClass, List.of("-agentpath:" + agentLibrary() + "=" + agentOptions));
            }
            Path classes = classes(mainClass);
            return TargetJvm.startWrapped(DebianRoots.ownMountNamespace(root.root()), classes, jdk, mainClass,
                    List.of("-agentpath:" + classes.resolve("libjvmticli.so") + "=" + agentOptions));
        }

        private Path classes(Class<?> mainClass) {
            return DebianRoots.classes(root.root(), agentLibrary(), mainClass);
        }

        private static Path agentLibrary() {
            return Path.of(CliRun.run("agent-path").out().strip());
        }

        @Override
        public String toString() {
            return root == null ? jdk.toString() : root.toString();
        }
    }

    public static Stream<TargetJdk> every() {
        Stream<TargetJdk> here = Jdks.stream().map(jdk -> new TargetJdk(jdk, null));
        Stream<TargetJdk> inRoots = OtherUser.isRoot()
                ? DebianRoots.jdks().filter(r -> Jdks.stream().noneMatch(j -> j.feature() == r.feature())).map(r -> new TargetJdk(r.inside(), r))
                : Stream.empty();
        return Stream.concat(here, inRoots).sorted((a, b) -> Integer.compare(a.feature(), b.feature()));
    }
}
