package dev.jvmticli.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/** Prints one value as one pretty-printed JSON document. */
public final class JsonOutput {
    private JsonOutput() {
    }

    /**
     * Rendering's own: documents for people and pages, apart from the client's mapper, which reads
     * the agent's answers. Made by the first command that writes JSON.
     */
    private static final class Databind {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    static ObjectMapper mapper() {
        return Databind.MAPPER;
    }

    public static void print(PrintWriter out, Object value) {
        try {
            out.println(mapper().writer(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        out.flush();
    }
}
