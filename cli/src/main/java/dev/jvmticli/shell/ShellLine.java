package dev.jvmticli.shell;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.failure.OutputClosed;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One line typed into the shell: commands separated by {@code ;}, each with its words, optional
 * {@code | grep [-cvinE] [-A N] [-B N] [-C N] TEXT}, {@code | head [-n N]} and {@code | tail [-n N]} filters and an optional {@code > FILE} or {@code >> FILE} at the end.
 * Words are split as a POSIX shell would: {@code '...'} is literal, {@code "..."} takes {@code \"}
 * and {@code \\}, a backslash outside quotes escapes the next character, and {@code #} at the
 * start of a word begins a comment.
 */
public final class ShellLine {
    /** The most lines head, tail or grep's context take: more than any output. */
    static final int MAX_LINES = 100_000_000;

    private ShellLine() {
    }

    /** A command with what filters its output, in order. */
    public record Pipeline(List<String> words, List<Filter> filters, String file, boolean append) {
    }

    /** What may follow {@code |}: {@code grep}, {@code head} or {@code tail}. */
    public sealed interface Filter permits Grep, Head, Tail {
        /** A run of this filter over one command's output that hands what it keeps to emit. */
        Run run(Consumer<String> emit);
    }

    /** One run of a filter: {@link #accept} each line, then {@link #end} (once; more calls do nothing). */
    public abstract static class Run {
        private boolean ended;

        public abstract void accept(String line);

        /** Whether the filter wants no more lines: a head that has all of its own. */
        public boolean satisfied() {
            return false;
        }

        public final void end() {
            if (!ended) {
                ended = true;
                finish();
            }
        }

        /** What is handed over at the end (a count, a tail). */
        void finish() {
        }
    }

    /**
     * Keeps the lines in which pattern is found (or, inverted, those in which it is not); with count
     * only their number, at the end; with lineNumbers each kept line after its number in the input
     * and a colon (a context line: a dash), as grep -n; with before and after that many lines of
     * context around each kept line, and {@code --} between groups that are not adjacent, as grep -B, -A.
     */
    public record Grep(Pattern pattern, boolean invert, boolean count, boolean lineNumbers, int before, int after) implements Filter {
        public boolean keeps(String line) {
            return pattern.matcher(line).find() != invert;
        }

        @Override
        public Run run(Consumer<String> emit) {
            return new GrepRun(this, emit);
        }
    }

    private static final class GrepRun extends Run {
        private final Grep grep;
        private final Consumer<String> emit;
        /** The last lines neither kept nor shown as context, up to grep.before. */
        private final ArrayDeque<String> before = new ArrayDeque<>();
        private long lines;
        private long kept;
        private long lastEmitted;
        private long afterLeft;

        private GrepRun(Grep grep, Consumer<String> emit) {
            this.grep = grep;
            this.emit = emit;
        }

        @Override
        public void accept(String line) {
            lines++;
            boolean keeps = grep.keeps(line);
            if (keeps) {
                kept++;
            }
            if (grep.count()) {
                return;
            }
            if (keeps) {
                long first = lines - before.size();
                separate(first);
                for (String context : before) {
                    emitLine(first++, context, '-');
                }
                before.clear();
                emitLine(lines, line, ':');
                afterLeft = grep.after();
            } else if (afterLeft > 0) {
                afterLeft--;
                emitLine(lines, line, '-');
            } else if (grep.before() > 0) {
                if (before.size() == grep.before()) {
                    before.removeFirst();
                }
                before.addLast(line);
            }
        }

        private void separate(long next) {
            if ((grep.before() > 0 || grep.after() > 0) && lastEmitted > 0 && next > lastEmitted + 1) {
                emit.accept("--");
            }
        }

        private void emitLine(long number, String line, char mark) {
            emit.accept(grep.lineNumbers() ? number + String.valueOf(mark) + line : line);
            lastEmitted = number;
        }

        @Override
        void finish() {
            if (grep.count()) {
                emit.accept(Long.toString(kept));
            }
        }
    }

    /**
     * The first lines lines. The line after them ends the command as a closed pipe would ({@link
     * OutputClosed}, which the shell then takes as success: the reader had what it wanted).
     */
    public record Head(long lines) implements Filter {
        @Override
        public Run run(Consumer<String> emit) {
            return new Run() {
                private long seen;
                private boolean stopped;

                @Override
                public void accept(String line) {
                    if (seen < lines) {
                        seen++;
                        emit.accept(line);
                    } else if (!stopped) {
                        stopped = true; // once: what the command still writes on its way out is dropped
                        throw new OutputClosed(true, "head has its " + lines + " lines", null);
                    }
                }

                @Override
                public boolean satisfied() {
                    return stopped;
                }
            };
        }
    }

    /** The last lines lines, at the end. */
    public record Tail(long lines) implements Filter {
        @Override
        public Run run(Consumer<String> emit) {
            return new Run() {
                private final ArrayDeque<String> last = new ArrayDeque<>();

                @Override
                public void accept(String line) {
                    if (lines == 0) {
                        return;
                    }
                    if (last.size() == lines) {
                        last.removeFirst();
                    }
                    last.addLast(line);
                }

                @Override
                void finish() {
                    last.forEach(emit);
                }
            };
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
        List<Filter> filters = new ArrayList<>();
        for (List<String> filter : parts.subList(1, parts.size())) {
            filters.add(filter(filter));
        }
        return new Pipeline(List.copyOf(words), List.copyOf(filters), file, append);
    }

    /** The filters that may follow {@code |}, with their usage. */
    public static final Map<String, String> FILTERS = Map.of(
            "grep", "grep [-cvinE] [-A N] [-B N] [-C N] TEXT: keep the lines matching TEXT",
            "head", "head [-n N]: the first N lines (10), then end the command",
            "tail", "tail [-n N]: the last N lines (10)");

    private static Filter filter(List<String> words) {
        String name = words.isEmpty() ? null : words.get(0);
        if (name == null || !FILTERS.containsKey(name)) {
            throw syntax("only 'grep', 'head' or 'tail' can follow '|'" + (name == null ? "" : ", not '" + name + "'"));
        }
        List<String> arguments = words.subList(1, words.size());
        return name.equals("grep") ? grep(arguments) : lines(name, arguments);
    }

    /** head or tail's {@code [-n N]} (also {@code -N} and {@code -nN}). */
    private static Filter lines(String name, List<String> words) {
        long count = 10;
        if (words.size() == 2 && words.get(0).equals("-n")) {
            count = number(name, "-n", words.get(1));
        } else if (words.size() == 1 && words.get(0).matches("-n?[0-9]+")) {
            count = number(name, "-n", words.get(0).replaceFirst("^-n?", ""));
        } else if (!words.isEmpty()) {
            throw syntax(name + " takes only -n N, not '" + String.join(" ", words) + "'");
        }
        return name.equals("head") ? new Head(count) : new Tail(count);
    }

    private static int number(String filter, String option, String word) {
        try {
            int n = Integer.parseInt(word);
            if (n >= 0 && n <= MAX_LINES) {
                return n;
            }
        } catch (NumberFormatException e) {
            // told below
        }
        throw syntax(filter + " " + option + " takes a number of lines from 0 to " + MAX_LINES + ", not '" + word + "'");
    }

    private static Grep grep(List<String> words) {
        boolean invert = false;
        boolean ignoreCase = false;
        boolean count = false;
        boolean lineNumbers = false;
        int before = 0;
        int after = 0;
        String text = null;
        boolean options = true;
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            if (options && word.equals("--")) {
                options = false;
            } else if (options && text == null && word.matches("-[cvinE]+")) {
                invert |= word.contains("v");
                ignoreCase |= word.contains("i");
                count |= word.contains("c");
                lineNumbers |= word.contains("n");
            } else if (options && text == null && word.matches("-[ABC][0-9]*")) {
                String option = word.substring(0, 2);
                String value = word.length() > 2 ? word.substring(2) : i + 1 < words.size() ? words.get(++i) : null;
                if (value == null) {
                    throw syntax("grep " + option + " needs a number of lines");
                }
                int n = number("grep", option, value);
                before = option.equals("-A") ? before : n;
                after = option.equals("-B") ? after : n;
            } else if (options && text == null && word.startsWith("-") && word.length() > 1) {
                throw syntax("grep takes -c, -v, -i, -n, -E, -A N, -B N and -C N, not '" + word + "' (a TEXT that starts with '-' goes after --)");
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
            return new Grep(Pattern.compile(text, ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0), invert, count, lineNumbers,
                    before, after);
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
