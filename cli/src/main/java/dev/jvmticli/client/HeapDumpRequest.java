package dev.jvmticli.client;

import java.util.Map;

/**
 * {@code heap.dump}: an .hprof written by the JVM's own heap dumper (GC.heap_dump) into a directory
 * as the target sees it.
 *
 * @param directory the directory, an absolute path in the target's file system
 * @param file      the new file's name in it
 * @param live      of the reachable objects only (a full collection first); else every object
 * @param gzLevel   gzip's level, 1 to 9, or 0 for an uncompressed .hprof
 */
public record HeapDumpRequest(String directory, String file, boolean live, int gzLevel) implements AgentRequest {
    @Override
    public String command() {
        return "heap.dump";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("directory", directory, "file", file, "live", live, "gzLevel", gzLevel);
    }
}
