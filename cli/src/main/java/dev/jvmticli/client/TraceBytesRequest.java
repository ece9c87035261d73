package dev.jvmticli.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code trace.bytes}: one piece of a class's new bytes, in order: the class's index in
 * {@link TraceStarted#classes()}, its whole size, the bytes sent before this piece, and this piece in base64.
 */
public record TraceBytesRequest(int classIndex, int size, int offset, String data) implements AgentRequest {
    @Override
    public String command() {
        return "trace.bytes";
    }

    @Override
    public Map<String, Object> arguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("class", classIndex);
        arguments.put("size", size);
        arguments.put("offset", offset);
        arguments.put("data", data);
        return arguments;
    }
}
