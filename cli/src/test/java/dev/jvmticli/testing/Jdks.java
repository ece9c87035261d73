package dev.jvmticli.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/** Every JDK installed on this machine: the one running the tests, and those beside it. */
public final class Jdks {
    private static final List<Jdk> ALL = discover();

    private Jdks() {
    }

    /** A JDK home with its feature version. */
    public record Jdk(Path home, int feature, String version) {
        public Path java() {
            return home.resolve("bin").resolve("java");
        }

        @Override
        public String toString() {
            return "JDK " + version;
        }
    }

    public static List<Jdk> all() {
        return ALL;
    }

    public static Stream<Jdk> stream() {
        return ALL.stream();
    }

    /** The JDK running the tests. */
    public static Jdk current() {
        Path home = Path.of(System.getProperty("java.home"));
        return ALL.stream().filter(j -> sameFile(j.home(), home)).findFirst().orElseThrow();
    }

    /** The newest installed JDK at or above the feature version, if any. */
    public static java.util.Optional<Jdk> atLeast(int feature) {
        return ALL.stream().filter(j -> j.feature() >= feature).reduce((a, b) -> b.feature() >= a.feature() ? b : a);
    }

    private static List<Jdk> discover() {
        Map<Path, Jdk> found = new LinkedHashMap<>();
        List<Path> candidates = new ArrayList<>();
        candidates.add(Path.of(System.getProperty("java.home")));
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib/jvm"))) {
            dirs.sorted().forEach(candidates::add);
        } catch (IOException e) {
            // only the running JDK then
        }
        for (Path candidate : candidates) {
            try {
                Path home = candidate.toRealPath();
                Path release = home.resolve("release");
                if (found.containsKey(home) || !Files.isExecutable(home.resolve("bin/java")) || !Files.exists(release)
                        || !Files.exists(home.resolve("lib/libattach.so"))) {
                    continue;
                }
                Properties properties = new Properties();
                try (var in = Files.newBufferedReader(release)) {
                    properties.load(in);
                }
                String version = properties.getProperty("JAVA_VERSION", "\"0\"").replace("\"", "");
                int feature = Integer.parseInt(version.split("[.+-]")[0]);
                found.put(home, new Jdk(home, feature, version));
            } catch (IOException | RuntimeException e) {
                // not a JDK
            }
        }
        List<Jdk> jdks = new ArrayList<>(found.values());
        jdks.sort((a, b) -> Integer.compare(a.feature(), b.feature()));
        return List.copyOf(jdks);
    }

    private static boolean sameFile(Path a, Path b) {
        try {
            return Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }
}
