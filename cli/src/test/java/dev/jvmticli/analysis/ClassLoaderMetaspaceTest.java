package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.jvmticli.client.ClassLoadersReport;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rows of VM.classloader_stats tied to a classloaders answer's loaders through VM.classloaders' tree (JDK 17's texts). */
class ClassLoaderMetaspaceTest {
    static final String STATS = """
            ClassLoader         Parent              CLD*               Classes   ChunkSz   BlockSz  Type
            0x00007f0c90040b40  0x00007f0c8f07af08  0x00007f0d101231c0       1       768       142  java.net.URLClassLoader
            0x00007f0c8f07af08  0x00007f0c8f07d1e8  0x00007f0d1010b850       1       768       417  jdk.internal.loader.ClassLoaders$AppClassLoader
            0x00007f0c90040b40  0x00007f0c8f07af08  0x00007f0d101225b0       2      1024       300  java.net.URLClassLoader
            0x0000000000000000  0x0000000000000000  0x00007f0d100daab0     655    557056     38117  <boot class loader>
                                                                             6      2304      1452   + hidden classes
            0x00007f0c90040b40  0x00007f0c8f07af08  0x00007f0d10121a50       1       768       142  java.net.URLClassLoader
            0x00007f0c8f07d1e8  0x0000000000000000  0x00007f0d100e3940       0         0         0  jdk.internal.loader.ClassLoaders$PlatformClassLoader
            0x00007f0c90040b40  0x00007f0c8f07af08  0x00007f0d10123df0       1       640       142  java.net.URLClassLoader
            Total = 7                                                      666    563072     40554 \s
            ChunkSz: Total size of all allocated metaspace chunks
            """;

    static final String TREE = """
            +-- <bootstrap>
                  |
                  |            Loader Oop: 0x0000000000000000
                  |           Loader Data: 0x00007f0d100daab0
                  |          Loader Klass: 0x0000000000000000
                  |
                  +-- "platform", jdk.internal.loader.ClassLoaders$PlatformClassLoader
                        |
                        |            Loader Oop: 0x00000007ffb56100
                        |           Loader Data: 0x00007f0d100e3940
                        |          Loader Klass: 0x00007f0c8f07d1e8
                        |
                        +-- "app", jdk.internal.loader.ClassLoaders$AppClassLoader
                              |
                              |            Loader Oop: 0x00000007ffb56098
                              |           Loader Data: 0x00007f0d1010b850
                              |          Loader Klass: 0x00007f0c8f07af08
                              |
                              +-- "plugin-0", java.net.URLClassLoader
                              |
                              |                  Loader Oop: 0x000000069ec19b80
                              |                 Loader Data: 0x00007f0d10121a50
                              |                Loader Klass: 0x00007f0c90040b40
                              |
                              +-- java.net.URLClassLoader
                              |
                              |                  Loader Oop: 0x000000069ec4ecd8
                              |                 Loader Data: 0x00007f0d101225b0
                              |                Loader Klass: 0x00007f0c90040b40
                              |
                              +-- java.net.URLClassLoader
                              |
                              |                  Loader Oop: 0x000000069ec50a00
                              |                 Loader Data: 0x00007f0d101231c0
                              |                Loader Klass: 0x00007f0c90040b40
                              |
                              +-- "plugin-9", java.net.URLClassLoader
                                          Loader Oop: 0x000000069ecf6850
                                         Loader Data: 0x00007f0d10123df0
                                        Loader Klass: 0x00007f0c90040b40
            """;

    private static ClassLoadersReport.Loader loader(long id, String type, String name, Long parent) {
        return new ClassLoadersReport.Loader(id, type, 0L, name, parent, false, 1, 0, 0, 0, 0, 0, true, false);
    }

    private static ClassLoadersReport report(String stats, String tree, List<ClassLoadersReport.Loader> loaders) {
        return new ClassLoadersReport(0, null, 0, 0, 0, 0, 0, null, null, loaders, List.of(), stats, null, tree, null);
    }

    @Test
    void eachNamedLoaderGetsItsOwnRowAndTheAlikeOnesTheirGroupsTotal() {
        List<ClassLoadersReport.Loader> loaders = List.of(
                loader(0, "<bootstrap>", null, null),
                loader(10, "jdk.internal.loader.ClassLoaders$PlatformClassLoader", "platform", 0L),
                loader(11, "jdk.internal.loader.ClassLoaders$AppClassLoader", "app", 10L),
                loader(12, "java.net.URLClassLoader", "plugin-0", 11L),
                loader(13, "java.net.URLClassLoader", null, 11L),
                loader(14, "java.net.URLClassLoader", null, 11L),
                loader(15, "java.net.URLClassLoader", "plugin-9", 11L));
        Map<Long, ClassLoaderMetaspace.Metaspace> m = ClassLoaderMetaspace.of(report(STATS, TREE, loaders));
        assertEquals(new ClassLoaderMetaspace.Metaspace("0x00007f0d100daab0", 655, 6, 557056 + 2304, 38117 + 1452, 1), m.get(0L));
        assertEquals(new ClassLoaderMetaspace.Metaspace("0x00007f0d1010b850", 1, 0, 768, 417, 1), m.get(11L));
        assertEquals(new ClassLoaderMetaspace.Metaspace("0x00007f0d10121a50", 1, 0, 768, 142, 1), m.get(12L));
        assertEquals(new ClassLoaderMetaspace.Metaspace("0x00007f0d10123df0", 1, 0, 640, 142, 1), m.get(15L));
        // the two unnamed ones differ: each gets the pair's total, said so
        ClassLoaderMetaspace.Metaspace pair = new ClassLoaderMetaspace.Metaspace(null, 3, 0, 1024 + 768, 300 + 142, 2);
        assertEquals(pair, m.get(13L));
        assertEquals(pair, m.get(14L));
    }

    @Test
    void alikeLoadersWithEqualFiguresGetThemEachAndALoaderWithoutItsRowNone() {
        String equal = STATS.replace("       2      1024       300  java.net.URLClassLoader", "       1       768       142  java.net.URLClassLoader");
        List<ClassLoadersReport.Loader> loaders = List.of(
                loader(0, "<bootstrap>", null, null),
                loader(10, "jdk.internal.loader.ClassLoaders$PlatformClassLoader", "platform", 0L),
                loader(11, "jdk.internal.loader.ClassLoaders$AppClassLoader", "app", 10L),
                loader(13, "java.net.URLClassLoader", null, 11L),
                loader(14, "java.net.URLClassLoader", null, 11L),
                loader(16, "java.net.URLClassLoader", "made-after-the-read", 11L));
        Map<Long, ClassLoaderMetaspace.Metaspace> m = ClassLoaderMetaspace.of(report(equal, TREE, loaders));
        assertEquals(new ClassLoaderMetaspace.Metaspace(null, 1, 0, 768, 142, 1), m.get(13L));
        assertEquals(new ClassLoaderMetaspace.Metaspace(null, 1, 0, 768, 142, 1), m.get(14L));
        assertFalse(m.containsKey(16L));
    }

    @Test
    void noTextNoFigures() {
        assertEquals(Map.of(), ClassLoaderMetaspace.of(report(null, TREE, List.of(loader(0, "<bootstrap>", null, null)))));
        assertNull(ClassLoaderMetaspace.of(report(STATS, null, List.of())).get(0L));
    }
}
