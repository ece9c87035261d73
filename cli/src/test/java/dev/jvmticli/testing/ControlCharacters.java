package dev.jvmticli.testing;

/** Where a text output holds a control character a terminal would act on. */
public final class ControlCharacters {
    private ControlCharacters() {
    }

    /**
     * The first raw control character of text, with its line, or null: a C0 control but the line
     * end and a tab that starts a line (jstack's frame and lock lines), DEL, or a C1 control.
     */
    public static String firstRaw(String text) {
        int line = 1;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                line++;
                continue;
            }
            boolean lineStartTab = c == '\t' && (i == 0 || text.charAt(i - 1) == '\n');
            if (!lineStartTab && (c < 0x20 || c == 0x7F || c >= 0x80 && c <= 0x9F)) {
                return String.format("U+%04X on line %d", (int) c, line);
            }
        }
        return null;
    }
}
