package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.MethodRef;
import java.util.List;
import org.junit.jupiter.api.Test;

class JvmNamesTest {
    @Test
    void classSignaturesBecomeJavaNames() {
        assertEquals("java.lang.String", JvmNames.className("Ljava/lang/String;"));
        assertEquals("byte[]", JvmNames.className("[B"));
        assertEquals("a.B$C[][]", JvmNames.className("[[La/B$C;"));
        assertEquals("?", JvmNames.className(null));
    }

    @Test
    void aHiddenClassIsNamedAsClassGetNameAndTheHeapHistogramNameIt() {
        // JVMTI signs a lambda's hidden class with a '.' before its suffix; getName() and GC.class_histogram have a '/'
        assertEquals("org.apache.kafka.Shop$$Lambda$1387/0x00007f0000a01234",
                JvmNames.className("Lorg/apache/kafka/Shop$$Lambda$1387.0x00007f0000a01234;"));
        assertEquals("a.B$$Lambda/0x0000000800c0b000[]", JvmNames.className("[La/B$$Lambda.0x0000000800c0b000;"));
    }

    @Test
    void framesNameTheirMethodAndLine() {
        List<MethodRef> methods = List.of(new MethodRef("La/B;", "run", "()V"), new MethodRef(null, null, null));
        assertEquals("a.B.run:12", JvmNames.frame(methods, new long[] {0, 3, 12}));
        assertEquals("a.B.run", JvmNames.frame(methods, new long[] {0, 3, -1}));
        assertEquals("?.?", JvmNames.frame(methods, new long[] {1, 0, -1}));
        assertEquals("?", JvmNames.frame(methods, new long[] {-1, 0, -1}));
    }
}
