package dev.jvmticli.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.shell.ShellLine;
import dev.jvmticli.testing.DocPages;
import dev.jvmticli.testing.DocPages.Example;
import dev.jvmticli.testing.DocPages.Link;
import dev.jvmticli.testing.DocPages.OptionMention;
import dev.jvmticli.testing.DocPages.Page;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * README.md and docs/ name only options the CLI has, show only command lines it parses, and link
 * only to pages and headings that exist. DocsIT runs the command lines.
 */
class DocsTest {
    private static final Path CHECKOUT = DocPages.checkout();
    /** watch's options, as Shell.watch reads them. */
    private static final Set<String> WATCH_OPTIONS = Set.of("-n", "--interval");

    /** The CLI's picocli model, built from the real command classes as a run builds it. */
    private static final CommandLine MODEL = JvmtiCli.commandLine(new CliContext(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())));

    @Test
    void everyOptionTheDocsNameIsAnOptionOfItsCommand() {
        List<String> problems = new ArrayList<>();
        int mentions = 0;
        for (Page page : DocPages.all(CHECKOUT)) {
            mentions += DocPages.optionMentions(page, MODEL.getSubcommands().keySet()).size();
            problems.addAll(unknownOptions(page));
        }
        assertEquals(List.of(), problems, "options the docs name that the CLI does not have");
        assertTrue(mentions > 100, "the docs name " + mentions + " options: is the reader broken?");
    }

    @Test
    void anOptionTheCliDoesNotHaveIsReported() {
        Page page = new Page("docs/made-up.md", List.of(
                "## `jvmti-cli threads <pid>`",
                "With `--top N` and `--no-such-option`, or `stacks -q`; `watch -z`, `grep -x` and `head -c` in the shell."));
        assertEquals(List.of(
                "docs/made-up.md:2: `--no-such-option`: threads has no option --no-such-option",
                "docs/made-up.md:2: `stacks -q`: stacks has no option -q",
                "docs/made-up.md:2: `watch -z`: watch has no option -z",
                "docs/made-up.md:2: `grep -x`: grep has no option -x",
                "docs/made-up.md:2: `head -c`: head has no option -c"), unknownOptions(page));
    }

    @Test
    void everyCommandInTheHelpListIsDescribedByAWholeSentence() {
        // --help lists each command with the first element of its description: it must say all of it
        List<String> cut = MODEL.getSubcommands().entrySet().stream()
                .filter(e -> !e.getValue().getCommandSpec().usageMessage().description()[0].strip().endsWith("."))
                .map(e -> e.getKey() + ": " + e.getValue().getCommandSpec().usageMessage().description()[0])
                .toList();
        assertEquals(List.of(), cut);
    }

    private static List<String> unknownOptions(Page page) {
        CommandLine model = MODEL;
        Set<String> commands = model.getSubcommands().keySet();
        List<String> problems = new ArrayList<>();
        for (OptionMention mention : DocPages.optionMentions(page, commands)) {
            String command = mention.command();
            boolean known;
            if (command == null) {
                known = has(model, mention.option())
                        || model.getSubcommands().values().stream().anyMatch(sub -> has(sub, mention.option()));
                command = "any command";
            } else if (command.equals("watch")) {
                known = WATCH_OPTIONS.contains(mention.option());
            } else if (ShellLine.FILTERS.containsKey(command)) {
                known = filterTakes(command, mention.option());
            } else {
                known = has(model.getSubcommands().get(command), mention.option());
            }
            if (!known) {
                problems.add(mention + ": " + command + " has no option " + mention.option());
            }
        }
        return problems;
    }

    /** An option of the command, inherited ones (--timeout) and negated forms (--no-group) included. */
    private static boolean has(CommandLine command, String option) {
        return command.getCommandSpec().findOption(option) != null || command.getCommandSpec().negatedOptionsMap().containsKey(option);
    }

    /** Whether the filter (grep, head, tail) takes the option, as a flag or with a number. */
    private static boolean filterTakes(String filter, String option) {
        String text = filter.equals("grep") ? " TEXT" : "";
        for (String value : new String[] {"", " 1"}) {
            try {
                ShellLine.parse("threads | " + filter + " " + option + value + text);
                return true;
            } catch (CliFailure e) {
                // not in this form
            }
        }
        return false;
    }

    @Test
    void everyCommandLineTheDocsShowParses() {
        List<String> problems = new ArrayList<>();
        int lines = 0;
        CommandLine model = MODEL; // each parse starts from the options' initial values
        for (Page page : DocPages.all(CHECKOUT)) {
            for (Example example : DocPages.examples(page)) {
                lines++;
                try {
                    model.parseArgs(example.arguments().toArray(String[]::new));
                } catch (CommandLine.ParameterException e) {
                    problems.add(example + ": " + e.getMessage());
                }
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(lines > 40, "the docs show " + lines + " command lines: is the reader broken?");
    }

    @Test
    void everyLinkPointsAtAPageAndAHeadingThatExist() {
        List<String> problems = new ArrayList<>();
        for (Page page : DocPages.all(CHECKOUT)) {
            for (Link link : DocPages.links(page, CHECKOUT)) {
                if (!Files.exists(link.file())) {
                    problems.add(link + ": no such file");
                } else if (link.anchor() != null && !DocPages.anchors(link.file()).contains(link.anchor())) {
                    problems.add(link + ": no such heading; there are " + new TreeSet<>(DocPages.anchors(link.file())));
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void theReadmeIsAFirstVisitAndEveryDocsPageIsLinkedFromIt() throws Exception {
        List<String> readme = Files.readAllLines(CHECKOUT.resolve("README.md"));
        assertTrue(readme.size() <= 250, "README.md has " + readme.size() + " lines; the manual belongs in docs/");
        String text = String.join("\n", readme);
        try (var docs = Files.list(CHECKOUT.resolve("docs"))) {
            for (Path page : docs.filter(p -> p.toString().endsWith(".md")).toList()) {
                assertTrue(text.contains("(docs/" + page.getFileName() + ")"), "README links to docs/" + page.getFileName());
            }
        }
    }
}
