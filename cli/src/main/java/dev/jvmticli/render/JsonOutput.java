package dev.jvmticli.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * Prints one value as one pretty-printed JSON document. JSON escapes control characters below
 * U+0020 itself; DEL and the others a terminal would act on or not show (C1 controls, format characters,
 * line separators: {@link Printable}) are escaped too, the way JSON escapes any character: the
 * value read back is the same.
 */
public final class JsonOutput {
    private static final CharacterEscapes UNPRINTABLE = new CharacterEscapes() {
        private final int[] ascii = standardAsciiEscapesForJSON();

        {
            ascii[0x7F] = ESCAPE_STANDARD; // DEL, which JSON allows raw
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int c) {
            // a surrogate of a pair arrives alone: pairs stay as they are
            return Printable.unprintable(c) && !Character.isSurrogate((char) c)
                    ? new SerializedString(String.format("\\u%04X", c)) : null;
        }
    };

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
            out.println(mapper().writer(SerializationFeature.INDENT_OUTPUT).with(UNPRINTABLE).writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        out.flush();
    }
}
