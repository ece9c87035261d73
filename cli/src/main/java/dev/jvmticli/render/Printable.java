package dev.jvmticli.render;

/**
 * Text from the target (thread, class, method, file and jar names, properties) as every text
 * output shows it: control characters and other characters a terminal would not print are written
 * out visibly, so that a name can neither drive the reader's terminal (ESC, BEL, C1) nor forge a
 * line of the output (a newline, a carriage return). {@code \n \r \t \e \a \0}; any other
 * character below U+0080 that is not printable as {@code \xnn}; from U+0080 on, C1 controls,
 * format characters (bidirectional overrides among them), line and paragraph separators, unpaired
 * surrogates and unassigned code points as <code>&#92;u{nnnn}</code> (four hex digits or more); a
 * backslash as {@code \\}, so that the escaped form reads back one way. JSON is escaped its own
 * way ({@link JsonOutput}).
 */
public final class Printable {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Printable() {
    }

    /** text with every unprintable character escaped; the same String when it has none. */
    public static String text(String text) {
        if (text == null) {
            return null;
        }
        int first = 0;
        while (first < text.length()) {
            int c = text.codePointAt(first);
            if (escaped(c)) {
                break;
            }
            first += Character.charCount(c);
        }
        if (first == text.length()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            if (!escaped(c)) {
                out.appendCodePoint(c);
                continue;
            }
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case 0x1B -> out.append("\\e");
                case 0x07 -> out.append("\\a");
                case 0 -> out.append("\\0");
                default -> {
                    if (c < 0x80) {
                        out.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        String hex = Integer.toHexString(c);
                        out.append("\\u{").append("0".repeat(Math.max(0, 4 - hex.length()))).append(hex).append('}');
                    }
                }
            }
        }
        return out.toString();
    }

    private static boolean escaped(int c) {
        return c < 0x80 ? c < 0x20 || c == 0x7F || c == '\\' : unprintable(c);
    }

    /** A character from U+0080 on that a terminal does not print as itself (see the class comment). */
    static boolean unprintable(int c) {
        return switch (Character.getType(c)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                 Character.SURROGATE, Character.UNASSIGNED -> true;
            default -> false;
        };
    }
}
