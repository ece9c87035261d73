package dev.jvmticli.attach;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The bytes of HotSpot's attach protocol, version 1. */
class AttachListenerTest {
    @Test
    void aRequestIsTheVersionTheCommandAndThreeArgumentsEachEndedByNul() {
        assertArrayEquals("1\0load\0/tmp/lib.so\0true\0v=2\0".getBytes(StandardCharsets.UTF_8),
                AttachListener.request("load", "/tmp/lib.so", "true", "v=2"));
        assertArrayEquals("1\0properties\0\0\0\0".getBytes(StandardCharsets.UTF_8), AttachListener.request("properties"));
        assertThrows(IllegalArgumentException.class, () -> AttachListener.request("load", "a", "b", "c", "d"));
    }

    @Test
    void anAnswerIsAStatusLineThenTheOutput() {
        AttachListener.Answer loaded = AttachListener.parse("0\nreturn code: 106\n");
        assertEquals(0, loaded.status());
        assertEquals("return code: 106\n", loaded.output());

        AttachListener.Answer badVersion = AttachListener.parse("101\n");
        assertTrue(badVersion.badVersion());
        assertEquals("", badVersion.output());

        assertThrows(IllegalArgumentException.class, () -> AttachListener.parse("HTTP/1.1 400\n"));
    }
}
