package dev.jvmticli.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The words of a command line as sh splits them, enough for the command lines the docs show:
 * quotes, backslashes, comments and the operators {@code | || && ; & < > >>}.
 */
final class ShellWords {
    private ShellWords() {
    }

    private record Token(String text, boolean operator) {
    }

    /**
     * The words after the first command {@code jvmti-cli} (any path to it) up to the next operator,
     * or empty when the line does not run the CLI. Variable assignments before it are skipped.
     */
    static Optional<List<String>> cliArguments(String line) {
        List<Token> tokens = tokens(line);
        boolean commandWord = true; // the next word names a command (after assignments such as JAVA_HOME=...)
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.operator()) {
                commandWord = !token.text().startsWith("<") && !token.text().startsWith(">");
                continue;
            }
            if (!commandWord || token.text().matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
                continue;
            }
            commandWord = false;
            if (!isCli(token.text())) {
                continue;
            }
            List<String> arguments = new ArrayList<>();
            for (int j = i + 1; j < tokens.size() && !tokens.get(j).operator(); j++) {
                arguments.add(tokens.get(j).text());
            }
            return Optional.of(arguments);
        }
        return Optional.empty();
    }

    static boolean hasInputRedirection(String line) {
        return tokens(line).stream().anyMatch(t -> t.operator() && t.text().equals("<"));
    }

    private static boolean isCli(String word) {
        return word.equals("jvmti-cli") || word.endsWith("/jvmti-cli");
    }

    private static List<Token> tokens(String line) {
        List<Token> tokens = new ArrayList<>();
        StringBuilder word = null;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\'' || c == '"') {
                int end = line.indexOf(c, i + 1);
                while (c == '"' && end > 0 && line.charAt(end - 1) == '\\') {
                    end = line.indexOf(c, end + 1);
                }
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated " + c + " in: " + line);
                }
                String quoted = line.substring(i + 1, end);
                word = (word == null ? new StringBuilder() : word).append(c == '"' ? quoted.replaceAll("\\\\([\"\\\\$])", "$1") : quoted);
                i = end;
            } else if (c == '\\' && i + 1 < line.length()) {
                word = (word == null ? new StringBuilder() : word).append(line.charAt(++i));
            } else if (Character.isWhitespace(c)) {
                word = flush(tokens, word);
            } else if (c == '#' && word == null) {
                break;
            } else if ("|&;<>".indexOf(c) >= 0) {
                word = flush(tokens, word);
                boolean doubled = i + 1 < line.length() && line.charAt(i + 1) == c && c != ';' && c != '<';
                tokens.add(new Token(doubled ? "" + c + c : "" + c, true));
                i += doubled ? 1 : 0;
            } else {
                word = (word == null ? new StringBuilder() : word).append(c);
            }
        }
        flush(tokens, word);
        return tokens;
    }

    private static StringBuilder flush(List<Token> tokens, StringBuilder word) {
        if (word != null) {
            tokens.add(new Token(word.toString(), false));
        }
        return null;
    }
}
