package dev.jvmticli.client;

/** An object used as a lock, known by its identity hash code and class. */
public record LockRef(String className, long hash) {
    /**
     * {@code <0x...>}, the same for the same object everywhere in one dump: 16 hex digits, made
     * without String.format, which parses its pattern at every call (a third of the rendering of
     * monitors for 2,000 threads).
     */
    public String address() {
        String digits = Long.toHexString(hash);
        return "<0x" + "0".repeat(16 - digits.length()) + digits + ">";
    }

    // written out rather than generated: a generated one is bootstrapped through method handles at
    // its first use, a large part of a cold deadlocks or monitors run that looks up owners by lock
    // (docs/performance.md)
    @Override
    public boolean equals(Object other) {
        return other instanceof LockRef l && hash == l.hash && java.util.Objects.equals(className, l.className);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Objects.hashCode(className) + Long.hashCode(hash);
    }
}
