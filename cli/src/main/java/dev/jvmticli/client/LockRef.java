package dev.jvmticli.client;

/** An object used as a lock, known by its identity hash code and class. */
public record LockRef(String className, long hash) {
    /** {@code <0x...>}, the same for the same object everywhere in one dump. */
    public String address() {
        // what String.format("<0x%016x>", hash) prints, without Formatter's cost on each of thousands of lock lines
        String hex = Long.toHexString(hash);
        return "<0x" + "0".repeat(Math.max(0, 16 - hex.length())) + hex + ">";
    }
}
