package dev.jvmticli.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class LockRefTest {
    @Test
    void theAddressIsSixteenHexDigitsAsJstackPrintsIt() {
        assertEquals("<0x000000007ab84df2>", new LockRef("java.lang.Object", 0x7ab84df2L).address());
        assertEquals("<0x0000000000000000>", new LockRef("java.lang.Object", 0).address());
        assertEquals("<0xffffffffffffffff>", new LockRef("java.lang.Object", -1).address());
    }

    @Test
    void locksAreEqualByClassAndHash() {
        LockRef lock = new LockRef("java.lang.Object", 7);
        assertEquals(lock, new LockRef("java.lang.Object", 7));
        assertEquals(lock.hashCode(), new LockRef("java.lang.Object", 7).hashCode());
        assertNotEquals(lock, new LockRef("java.lang.String", 7));
        assertNotEquals(lock, new LockRef("java.lang.Object", 8));
        assertNotEquals(new LockRef(null, 7), lock);
        assertEquals(new LockRef(null, 7), new LockRef(null, 7));
    }
}
