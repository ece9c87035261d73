package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.AgentClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonOutputTest {
    @Test
    void controlCharactersAreEscapedAndTheValueReadsBackTheSame() throws Exception {
        String name = "esc\u001b del\u007f c1\u009b\u0085 bidi\u202e tab\t 中文 😀 é";
        StringWriter text = new StringWriter();
        JsonOutput.print(new PrintWriter(text), Map.of("name", name));
        String json = text.toString();
        assertTrue(json.contains("esc\\u001B del\\u007F c1\\u009B\\u0085 bidi\\u202E tab\\t 中文 😀 é"), json);
        assertEquals(name, AgentClient.mapper().readTree(json).path("name").asText());
    }
}
