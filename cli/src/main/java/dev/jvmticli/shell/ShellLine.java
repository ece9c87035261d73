package dev.jvmticli.shell;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One line typed into the shell: commands separated by {@code ;}, each with its words, optional
 * {@code | grep [-c] [-v] [-i] [-n] [-E] TEXT} filters and an optional {@code > FILE} or {@code >> FILE} at the end.
 * Words are split as a POSIX shell would: {@code '...'} is literal, {@code "..."} takes {@code \"}
 * and {@code \\}, a backslash outside quotes escapes the next character, and {@code #} at the
 * start of a word begins a comment.
 */
public final class ShellLine {
    private ShellLine() {
    }

    /** A command with what filters its output. */
    public record Pipeline(List<String> words, List<Grep> greps, String file, boolean append) {
    }

    /**
     * Keeps the lines in which pattern is found (or, inverted, those in which it is not); with count
     * only their number, at the end; with lineNumbers each kept line after its number in the input
     * and a colon, as grep -n.
     */
    public record Grep(Pattern pattern, boolean invert, boolean count, boolean lineNumbers) {
        public boolean keeps(String line) {
            return pattern.matcher(line).find() != invert;
        }

        /** A filter over one command's output that hands what it keeps to emit. */
        public Filter filter(Consumer<String> emit) {
            return new Filter(this, emit);
        }
    }

    /** One run of a grep: {@link #accept} each line, then {@link #end}. */
    public static final class Filter {
        private final Grep grep;
        private final Consumer<String> emit;
        private long lines;
        private long kept;
        private boolean ended;

        private Filter(Grep grep, Consumer<String> emit) {
            this.grep = grep;
            this.emit = emit;
        }

        public void accept(String line) {
            lines++;
            if (!grep.keeps(line)) {
                return;
            }
            kept++;
            if (!grep.count()) {
                emit.accept(grep.lineNumbers() ? lines + ":" + line : line);
            }
        }

        /** With -c, hands over the count; once. */
        public void end() {
            if (grep.count() && !ended) {
                emit.accept(Long.toString(kept));
            }
            ended = true;
        }
    }

    /**
     * {@code watch [-n SECONDS] COMMAND} (also {@code --interval}): whether the interval option is
     * there, the interval as given (null: none, or the option ends the words) and the command's words.
     */
    public record Watch(boolean intervalOption, String interval, List<String> command) {
        /** The words of a command line that starts with {@code watch}. */
        public static Watch of(List<String> words) {
            boolean option = words.size() > 1 && (words.get(1).equals("-n") || words.get(1).equals("--interval"));
            if (!option) {
                return new Watch(false, null, words.subList(1, words.size()));
            }
            return words.size() > 2 ? new Watch(true, words.get(2), words.subList(3, words.size())) : new Watch(true, null, List.of());
        }
    }

    /** What the word at the end of a line being typed is for. */
    public enum Place {
        /** a word of the command: its name, an option, an option's value, or after {@code watch} */
        COMMAND,
        /** the filter right after {@code |} */
        FILTER,
        /** the file right after {@code >} or {@code >>} */
        FILE,
        /** anything else: a filter's or a file's further words */
        OTHER
    }

    /**
     * The end of a line being typed, as completion sees it: what its last word is for and, for a
     * command's word, the words of that command before it. An unclosed quote is taken as open.
     */
    public record Unfinished(Place place, List<String> words) {
    }

    /** A word, or an operator ({@code ; | > >>}); partial: the last word of an unfinished line, still being typed. */
    private record Token(String text, boolean operator, boolean partial) {
    }

    /** What the word being typed at the end of line is for (see {@link Unfinished}). */
    public static Unfinished unfinished(String line) {
        List<Token> tokens = tokens(line, true);
        if (!tokens.isEmpty() && tokens.get(tokens.size() - 1).partial()) {
            tokens.remove(tokens.size() - 1);
        }
        int start = 0;
        for (int i = tokens.size() - 1; i >= 0 && start == 0; i--) {
            Token token = tokens.get(i);
            if (!token.operator()) {
                continue;
            }
            boolean next = i == tokens.size() - 1;
            switch (token.text()) {
                case ";" -> start = i + 1;
                case "|" -> {
                    return new Unfinished(next ? Place.FILTER : Place.OTHER, List.of());
                }
                default -> { // > or >>
                    return new Unfinished(next ? Place.FILE : Place.OTHER, List.of());
                }
            }
        }
        return new Unfinished(Place.COMMAND, tokens.subList(start, tokens.size()).stream().map(Token::text).toList());
    }

    /** The commands of a line; none for a blank or comment line. */
    public static List<Pipeline> parse(String line) {
        List<Pipeline> pipelines = new ArrayList<>();
        List<Token> segment = new ArrayList<>();
        for (Token token : tokens(line, false)) {
            if (token.operator() && token.text().equals(";")) {
                if (segment.isEmpty()) {
                    throw syntax("nothing before ';'");
                }
                pipelines.add(pipeline(segment));
                segment = new ArrayList<>();
            } else {
                segment.add(token);
            }
        }
        if (!segment.isEmpty()) {
            pipelines.add(pipeline(segment));
        }
        return pipelines;
    }

    private static Pipeline pipeline(List<Token> tokens) {
        List<List<String>> parts = new ArrayList<>();
        parts.add(new ArrayList<>());
        String file = null;
        boolean append = false;
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (file != null) {
                throw syntax("'" + (append ? ">>" : ">") + " FILE' must come last");
            }
            if (!token.operator()) {
                parts.get(parts.size() - 1).add(token.text());
            } else if (token.text().equals("|")) {
                parts.add(new ArrayList<>());
            } else { // > or >>
                if (i + 1 >= tokens.size() || tokens.get(i + 1).operator()) {
                    throw syntax("'" + token.text() + "' needs a file name");
                }
                append = token.text().equals(">>");
                file = tokens.get(++i).text();
            }
        }
        List<String> words = parts.get(0);
        if (words.isEmpty()) {
            throw syntax("a command is missing before '" + tokens.get(0).text() + "'");
        }
        List<Grep> greps = new ArrayList<>();
        for (List<String> filter : parts.subList(1, parts.size())) {
            greps.add(grep(filter));
        }
        return new Pipeline(List.copyOf(words), List.copyOf(greps), file, append);
    }

    private static Grep grep(List<String> words) {
        if (words.isEmpty() || !words.get(0).equals("grep")) {
            throw syntax("only 'grep' can follow '|'" + (words.isEmpty() ? "" : ", not '" + words.get(0) + "'"));
        }
        boolean invert = false;
        boolean ignoreCase = false;
        boolean count = false;
        boolean lineNumbers = false;
        String text = null;
        boolean options = true;
        for (String word : words.subList(1, words.size())) {
            if (options && word.equals("--")) {
                options = false;
            } else if (options && text == null && word.matches("-[cvinE]+")) {
                invert |= word.contains("v");
                ignoreCase |= word.contains("i");
                count |= word.contains("c");
                lineNumbers |= word.contains("n");
            } else if (options && text == null && word.startsWith("-") && word.length() > 1) {
                throw syntax("grep takes -c, -v, -i, -n and -E, not '" + word + "' (a TEXT that starts with '-' goes after --)");
            } else if (text == null) {
                text = word;
            } else {
                throw syntax("grep takes one TEXT (quote it if it has spaces): '" + word + "'");
            }
        }
        if (text == null) {
            throw syntax("grep needs a TEXT to look for");
        }
        try {
            return new Grep(Pattern.compile(text, ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0), invert, count, lineNumbers);
        } catch (PatternSyntaxException e) {
            throw syntax("grep: bad regular expression '" + text + "': " + e.getDescription());
        }
    }

    /** The line's words and operators; unfinished: an unclosed quote runs to the end, and a last word is partial. */
    private static List<Token> tokens(String line, boolean unfinished) {
        List<Token> tokens = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '\'' || c == '"') {
                int end = c == '\'' ? line.indexOf('\'', i + 1) : closingDoubleQuote(line, i + 1);
                if (end < 0 && !unfinished) {
                    throw syntax("unclosed " + (c == '\'' ? "single" : "double") + " quote");
                }
                String quoted = line.substring(i + 1, end < 0 ? line.length() : end);
                word.append(c == '"' ? quoted.replaceAll("\\\\([\"\\\\])", "$1") : quoted);
                inWord = true;
                i = end < 0 ? line.length() : end + 1;
            } else if (c == '\\') {
                if (i + 1 < line.length()) {
                    word.append(line.charAt(i + 1));
                }
                inWord = true;
                i += 2;
            } else if (c == '#' && !inWord) {
                break;
            } else if (Character.isWhitespace(c) || c == ';' || c == '|' || c == '>') {
                if (inWord) {
                    tokens.add(new Token(word.toString(), false, false));
                    word.setLength(0);
                    inWord = false;
                }
                if (c == '>' && i + 1 < line.length() && line.charAt(i + 1) == '>') {
                    tokens.add(new Token(">>", true, false));
                    i += 2;
                    continue;
                }
                if (!Character.isWhitespace(c)) {
                    tokens.add(new Token(String.valueOf(c), true, false));
                }
                i++;
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            tokens.add(new Token(word.toString(), false, unfinished));
        }
        return tokens;
    }

    private static int closingDoubleQuote(String line, int from) {
        for (int i = from; i < line.length(); i++) {
            if (line.charAt(i) == '\\') {
                i++;
            } else if (line.charAt(i) == '"') {
                return i;
            }
        }
        return -1;
    }

    private static CliFailure syntax(String message) {
        return new CliFailure(ExitCode.USAGE, message);
    }
}
