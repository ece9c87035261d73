package dev.jvmticli.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.jvmticli.client.AgentClient;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/** Prints one value as one pretty-printed JSON document. */
public final class JsonOutput {
    private JsonOutput() {
    }

    public static void print(PrintWriter out, Object value) {
        try {
            out.println(AgentClient.mapper().writer(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        out.flush();
    }
}
