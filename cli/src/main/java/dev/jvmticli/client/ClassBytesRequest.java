package dev.jvmticli.client;

import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code <session>.bytes} of a session that instruments classes ({@code trace}, {@code parks}): one
 * piece of a class's new bytes, in order: the class's index in the start's classes, its whole size,
 * the bytes sent before this piece, and this piece in base64.
 */
public record ClassBytesRequest(String session, int classIndex, int size, int offset, String data) implements AgentRequest {
    /** Raw bytes per piece: its base64 stays well inside the agent's 64 KiB request line. */
    static final int PIECE = 30 * 1024;

    @Override
    public String command() {
        return session + ".bytes";
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

    /** Sends one class's new bytes to session, piece by piece. */
    public static void send(AgentClient client, String session, int classIndex, byte[] bytes) {
        for (int offset = 0; offset < bytes.length; offset += PIECE) {
            byte[] piece = Arrays.copyOfRange(bytes, offset, Math.min(bytes.length, offset + PIECE));
            client.call(new ClassBytesRequest(session, classIndex, bytes.length, offset, Base64.getEncoder().encodeToString(piece)), Map.class);
        }
    }
}
