package dev.jvmticli.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LockRefTest {
    @Test
    void theAddressIsTheHashIn16HexDigitsAsJstackPrintsIt() {
        for (long hash : new long[] {0, 0xdef, 0x7fffffffL, 0xffffffffL, 0x123456789abcdefL, Long.MAX_VALUE, -1}) {
            assertEquals(String.format("<0x%016x>", hash), new LockRef("java.lang.Object", hash).address());
        }
        assertEquals("<0x0000000000000def>", new LockRef("java.lang.Object", 0xdef).address());
    }
}
