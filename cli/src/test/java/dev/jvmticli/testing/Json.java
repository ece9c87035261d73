package dev.jvmticli.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** JSON helpers for assertions on --json output. */
public final class Json {
    private Json() {
    }

    public static JsonNode parse(String text) {
        try {
            return AgentClient.mapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + text, e);
        }
    }

    /** The element of an array whose field equals value. */
    public static JsonNode find(JsonNode array, String field, String value) {
        for (JsonNode element : array) {
            if (element.path(field).asText().equals(value)) {
                return element;
            }
        }
        throw new AssertionError("no element with " + field + "=" + value + " in " + array);
    }

    public static List<String> texts(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(element -> values.add(element.asText()));
        return values;
    }
}
