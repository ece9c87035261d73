package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What README.md and docs/*.md show of the CLI, read from the Markdown as a reader sees it:
 * <ul>
 * <li><b>examples</b>: each {@code $ ...} line of a code block that runs {@code jvmti-cli} (or
 *     {@code ./jvmti-cli}), with the exit code the page documents for it: the number under a
 *     following {@code $ echo $?}, the first number of a {@code status ...} line when the command
 *     line prints {@code PIPESTATUS}, 10 for {@code deadlocks} when its output shows a deadlock
 *     (README, exit codes), else 0. A comment {@code <!-- run against: NAME -->} before a code block
 *     names the target its examples run against (default {@code demo}); {@code <!-- not run: WHY -->}
 *     says why its examples cannot run in a test; {@code <!-- output not checked: WHY -->} why the
 *     output it shows cannot be expected of the test's run (another target, a longer window).</li>
 * <li><b>option mentions</b>: each option in an inline code span. A span that starts with a command
 *     ({@code stacks -l}, {@code jvmti-cli threads --top N}, or the shell's {@code grep -c} and
 *     {@code watch -n}) names options of that command; a span that is an option alone
 *     ({@code --by-lock}) names an option of the command the section's heading names, or, under a
 *     heading that names none, of some command. Options of other tools are written with their tool
 *     ({@code java --add-exports}, {@code jcmd GC.class_histogram -all}), so nothing here guesses.</li>
 * <li><b>links</b>: each relative Markdown link, with its anchor.</li>
 * </ul>
 */
public final class DocPages {
    /** The shell's own commands, which have no picocli model (see dev.jvmticli.shell.Shell). */
    private static final Set<String> SHELL_BUILTINS = Set.of("grep", "head", "tail", "watch");

    private static final Pattern FENCE = Pattern.compile("^\\s*```");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6}) (.*)$");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern RUN_AGAINST = Pattern.compile("<!-- run against: (\\S+) -->");
    private static final Pattern NOT_RUN = Pattern.compile("<!-- not run: (.+) -->");
    private static final Pattern OUTPUT_NOT_CHECKED = Pattern.compile("<!-- output not checked: (.+) -->");
    private static final Pattern OPTION = Pattern.compile("--[a-z][a-z0-9-]*|-[a-zA-Z]");
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Pattern COLUMN = Pattern.compile("[A-Z][A-Z0-9%_/.()#-]*");
    private static final Pattern LABEL = Pattern.compile("([A-Z][A-Za-z /-]*[a-z]):(\\s|$)");

    private DocPages() {
    }

    /** One page: its path relative to the checkout and its lines. */
    public record Page(String name, List<String> lines) {
    }

    /**
     * A {@code $} line of a code block that runs the CLI. {@code arguments} are the words after
     * {@code jvmti-cli} up to the first shell operator; {@code shellLine} is the whole line, for
     * those that need a shell (input redirection, PIPESTATUS); {@code setUp} are the lines before
     * it in the block that write a file it reads ({@code printf ... > FILE}); {@code output} the lines
     * the page shows under it.
     */
    public record Example(String page, int line, String shellLine, List<String> arguments, int expectedExit,
                          String target, String notRun, List<String> setUp, List<String> output, String outputNotChecked) {
        public boolean needsShell() {
            return shellLine.contains("PIPESTATUS") || ShellWords.hasInputRedirection(shellLine);
        }

        @Override
        public String toString() {
            return page + ":" + line + ": " + shellLine;
        }
    }

    /** An option named in prose; command is null where the section names no command. */
    public record OptionMention(String page, int line, String command, String option, String span) {
        @Override
        public String toString() {
            return page + ":" + line + ": `" + span + "`";
        }
    }

    /** A relative link: the page it is on, the file it points at (resolved), its anchor or null. */
    public record Link(String page, int line, Path file, String anchor, String text) {
        @Override
        public String toString() {
            return page + ":" + line + ": (" + text + ")";
        }
    }

    /** README.md and every docs/*.md of the checkout, README first. */
    public static List<Page> all(Path checkout) {
        List<Path> files = new ArrayList<>();
        files.add(checkout.resolve("README.md"));
        try (Stream<Path> docs = Files.list(checkout.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files.stream().map(f -> read(checkout, f)).toList();
    }

    /** The checkout the tests run in (they run in cli/). */
    public static Path checkout() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    private static Page read(Path checkout, Path file) {
        try {
            return new Page(checkout.relativize(file).toString(), Files.readAllLines(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Example> examples(Page page) {
        List<Example> examples = new ArrayList<>();
        List<String> lines = page.lines();
        String target = "demo";
        String notRun = null;
        String outputNotChecked = null;
        boolean inFence = false;
        List<String> setUp = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                if (!inFence) { // a marker holds for the next block only
                    target = "demo";
                    notRun = null;
                    outputNotChecked = null;
                    setUp.clear();
                }
                continue;
            }
            if (!inFence) {
                Matcher against = RUN_AGAINST.matcher(line);
                if (against.matches()) {
                    target = against.group(1);
                }
                Matcher not = NOT_RUN.matcher(line);
                if (not.matches()) {
                    notRun = not.group(1);
                }
                Matcher unchecked = OUTPUT_NOT_CHECKED.matcher(line);
                if (unchecked.matches()) {
                    outputNotChecked = unchecked.group(1);
                }
                continue;
            }
            if (!line.startsWith("$ ")) {
                continue;
            }
            String command = line.substring(2);
            Optional<List<String>> arguments = ShellWords.cliArguments(command);
            if (arguments.isEmpty()) {
                if (command.startsWith("printf ") && command.contains(">")) {
                    setUp.add(command);
                }
                continue;
            }
            examples.add(new Example(page.name(), i + 1, command, arguments.get(), expectedExit(lines, i, arguments.get()),
                    target, notRun, List.copyOf(setUp), output(lines, i), outputNotChecked));
        }
        return examples;
    }

    /** The lines a page shows under the command on line i, up to the next command or the block's end. */
    private static List<String> output(List<String> lines, int i) {
        List<String> output = new ArrayList<>();
        int next = i + 1;
        while (next < lines.size() && !lines.get(next).startsWith("$ ") && !FENCE.matcher(lines.get(next)).find()) {
            output.add(lines.get(next++));
        }
        return output;
    }

    /**
     * The lines of a command's output a reader relies on, as a page shows them: the header rows of
     * its tables (two or more column names in capitals: {@code ID  KIND  NID  STATE}), with their
     * columns, and its labelled sections and verdicts ({@code Top allocation sites:},
     * {@code Found one Java-level deadlock:}), by label.
     */
    public static List<String> shape(List<String> output) {
        List<String> shape = new ArrayList<>();
        for (String line : output) {
            List<String> words = List.of(line.strip().split("\\s+"));
            if (words.size() >= 2 && words.stream().allMatch(w -> COLUMN.matcher(w).matches())) {
                shape.add(String.join(" ", words));
            } else {
                Matcher label = LABEL.matcher(line);
                if (label.lookingAt()) {
                    shape.add(label.group(1) + ":");
                }
            }
        }
        return shape;
    }

    /** The exit code the page documents for the command on line i (see the class comment). */
    private static int expectedExit(List<String> lines, int i, List<String> arguments) {
        List<String> output = output(lines, i);
        int next = i + 1 + output.size();
        if (next + 1 < lines.size() && lines.get(next).equals("$ echo $?") && NUMBER.matcher(lines.get(next + 1)).matches()) {
            return Integer.parseInt(lines.get(next + 1));
        }
        if (lines.get(i).contains("PIPESTATUS")) {
            for (String out : output) {
                if (out.startsWith("status ")) {
                    return Integer.parseInt(out.split(" ")[1]);
                }
            }
            throw new IllegalStateException("line " + (i + 1) + " prints PIPESTATUS but shows no 'status' line");
        }
        if (arguments.contains("deadlocks") && output.stream().anyMatch(o -> o.startsWith("Found one Java-level deadlock"))) {
            return 10;
        }
        return 0;
    }

    public static List<OptionMention> optionMentions(Page page, Set<String> commands) {
        List<OptionMention> mentions = new ArrayList<>();
        String section = null;
        for (int i : proseLines(page.lines())) {
            String line = page.lines().get(i);
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                section = headingCommand(heading.group(2), commands);
            }
            Matcher span = CODE_SPAN.matcher(line);
            while (span.find()) {
                mentions.addAll(mentionsIn(page.name(), i + 1, span.group(1), section, commands));
            }
        }
        return mentions;
    }

    /** The indexes of the lines outside code blocks. */
    private static List<Integer> proseLines(List<String> lines) {
        List<Integer> prose = new ArrayList<>();
        boolean inFence = false;
        for (int i = 0; i < lines.size(); i++) {
            if (FENCE.matcher(lines.get(i)).find()) {
                inFence = !inFence;
            } else if (!inFence) {
                prose.add(i);
            }
        }
        return prose;
    }

    /** The command a heading's first code span names ({@code `jvmti-cli threads <pid>`}), or null. */
    private static String headingCommand(String heading, Set<String> commands) {
        Matcher span = CODE_SPAN.matcher(heading);
        if (!span.find()) {
            return null;
        }
        List<String> words = proseWords(span.group(1));
        if (!words.isEmpty() && words.get(0).equals("jvmti-cli")) {
            words = words.subList(1, words.size());
        }
        return !words.isEmpty() && (commands.contains(words.get(0)) || SHELL_BUILTINS.contains(words.get(0))) ? words.get(0) : null;
    }

    private static List<OptionMention> mentionsIn(String page, int line, String span, String section, Set<String> commands) {
        List<String> words = proseWords(span);
        if (!words.isEmpty() && (words.get(0).equals("jvmti-cli") || words.get(0).equals("./jvmti-cli"))) {
            words = words.subList(1, words.size());
        }
        if (words.isEmpty()) {
            return List.of();
        }
        String command;
        if (commands.contains(words.get(0)) || SHELL_BUILTINS.contains(words.get(0))) {
            command = words.get(0);
            words = words.subList(1, words.size());
        } else if (OPTION.matcher(words.get(0)).matches() || words.get(0).startsWith("--") && words.get(0).contains("=")) {
            command = section;
        } else {
            return List.of(); // another tool's words, or prose in code
        }
        List<OptionMention> mentions = new ArrayList<>();
        boolean afterPipe = false;
        for (String word : words) {
            String name = word.contains("=") ? word.substring(0, word.indexOf('=')) : word;
            if (afterPipe) {
                command = word; // stacks | head -n 20: the rest is the filter's
                afterPipe = false;
            } else if (word.equals("|")) {
                afterPipe = true;
            } else if (OPTION.matcher(name).matches()) {
                mentions.add(new OptionMention(page, line, command, name, span));
            } else if (command != null && commands.contains(word) && !word.equals(command)) {
                command = word; // watch -n 1 threads --top 2: the rest is another command's
            }
        }
        return mentions;
    }

    /** A span's words as prose shows them: {@code [--interval 1s]} is the words --interval and 1s. */
    private static List<String> proseWords(String span) {
        List<String> words = new ArrayList<>();
        for (String word : span.trim().split("\\s+")) {
            String bare = word.replaceAll("^[\\[(]+|[\\]),.;:]+$", "");
            if (!bare.isEmpty()) {
                words.add(bare);
            }
        }
        return words;
    }

    public static List<Link> links(Page page, Path checkout) {
        List<Link> links = new ArrayList<>();
        Path dir = checkout.resolve(page.name()).getParent();
        for (int i : proseLines(page.lines())) {
            Matcher link = LINK.matcher(page.lines().get(i));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? checkout.resolve(page.name()) : dir.resolve(file).normalize();
                links.add(new Link(page.name(), i + 1, resolved, hash < 0 ? null : target.substring(hash + 1), target));
            }
        }
        return links;
    }

    /** The anchors GitHub makes of a page's headings: lower case, punctuation dropped, spaces to '-'. */
    public static Set<String> anchors(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> anchors = new HashSet<>();
        for (int i : proseLines(lines)) {
            Matcher heading = HEADING.matcher(lines.get(i));
            if (heading.matches()) {
                String slug = heading.group(2).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                String unique = slug;
                for (int n = 1; !anchors.add(unique); n++) {
                    unique = slug + "-" + n;
                }
            }
        }
        return anchors;
    }
}
