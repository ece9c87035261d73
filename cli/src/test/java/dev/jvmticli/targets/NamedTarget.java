package dev.jvmticli.targets;

/** The threads scenario under a main class name no other test uses, for finding a JVM by name. */
public final class NamedTarget {
    private NamedTarget() {
    }

    public static void main(String[] args) throws Exception {
        ThreadsTarget.main(args);
    }
}
