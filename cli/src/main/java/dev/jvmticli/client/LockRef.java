package dev.jvmticli.client;

/** An object used as a lock, known by its identity hash code and class. */
public record LockRef(String className, long hash) {
    /** {@code <0x...>}, the same for the same object everywhere in one dump. */
    public String address() {
        return String.format("<0x%016x>", hash);
    }

    // written out rather than generated: a generated one is bootstrapped through method handles at
    // its first use, ~40 ms of a cold deadlocks or monitors run that looks up owners by lock
    @Override
    public boolean equals(Object other) {
        return other instanceof LockRef l && hash == l.hash && java.util.Objects.equals(className, l.className);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Objects.hashCode(className) + Long.hashCode(hash);
    }
}
