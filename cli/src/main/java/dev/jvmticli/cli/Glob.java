package dev.jvmticli.cli;

import java.util.regex.Pattern;

/** Shell-style globs: {@code *} any run of characters, {@code ?} one character, the rest literal. */
final class Glob {
    private Glob() {
    }

    static Pattern toPattern(String glob) {
        StringBuilder regex = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        glob.codePoints().forEach(cp -> {
            if (cp == '*' || cp == '?') {
                if (literal.length() > 0) {
                    regex.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                regex.append(cp == '*' ? ".*" : ".");
            } else {
                literal.appendCodePoint(cp);
            }
        });
        if (literal.length() > 0) {
            regex.append(Pattern.quote(literal.toString()));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}
