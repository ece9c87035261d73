package dev.jvmticli.client;

/** An object used as a lock, known by its identity hash code and class. */
public record LockRef(String className, long hash) {
    /** {@code <0x...>}, the same for the same object everywhere in one dump. */
    public String address() {
        return String.format("<0x%016x>", hash);
    }
}
