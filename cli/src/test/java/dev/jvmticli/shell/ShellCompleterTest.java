package dev.jvmticli.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.cli.CliContext;
import dev.jvmticli.cli.JvmtiCli;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.render.Printable;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jline.reader.Candidate;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Completion of thread names from what the shell found: platform and virtual threads, and what was too many to list. */
class ShellCompleterTest {
    private static final Map<String, CommandLine> COMMANDS =
            JvmtiCli.commandLine(new CliContext(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()))).getSubcommands();

    @Test
    void virtualThreadsAreCompletedAsVirtualAndAHostileOrEmptyNameIsNot() throws IOException {
        ShellCompleter.LiveThreads live = new ShellCompleter.LiveThreads(List.of(
                thread(1, "main", false), thread(40, "vt-req-1", true), thread(41, "", true), thread(42, "vt-\u001b[31mred", true)), 0);
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        List<Candidate> candidates = complete(live, "stacks --thread ", screen);
        assertEquals(List.of("main (id 1, RUNNABLE)", "1 (main)", "vt-req-1 (virtual, id 40, RUNNABLE)", "40 (vt-req-1)", "41 ()",
                "42 (" + Printable.text("vt-\u001b[31mred") + ")"), candidates.stream().map(c -> c.value() + " (" + c.descr() + ")").toList());
        assertTrue(candidates.stream().noneMatch(c -> c.descr().contains("\u001b")), "no escape reaches the screen");
        assertEquals("", screen.toString(StandardCharsets.UTF_8), "nothing left out, nothing said");
    }

    @Test
    void theAgentsOwnThreadIsNotOffered() throws IOException {
        ThreadEntry agent = new ThreadEntry(24, "jvmti-cli agent", "RUNNABLE", List.of(), true, 5, "system", 0, 0, true, null, false,
                null, false, null, null, null, null, null, false);
        ShellCompleter.LiveThreads live = new ShellCompleter.LiveThreads(List.of(thread(1, "main", false), agent), 0);
        List<Candidate> candidates = complete(live, "stacks --thread ", new ByteArrayOutputStream());
        assertEquals(List.of("main", "1"), candidates.stream().map(Candidate::value).toList());
    }

    @Test
    void virtualThreadsTooManyToListAreCountedAndSaidOnceForEachAsking() throws IOException {
        ShellCompleter.LiveThreads live = new ShellCompleter.LiveThreads(List.of(thread(1, "main", false)), 100_000);
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Terminal terminal = dumb(screen)) {
            LineReader reader = LineReaderBuilder.builder().terminal(terminal).build();
            ShellCompleter completer = new ShellCompleter(COMMANDS, () -> live);
            List<Candidate> candidates = new ArrayList<>();
            completer.complete(reader, reader.getParser().parse("threads --name m", 16), candidates);
            completer.complete(reader, reader.getParser().parse("threads --name m", 16), candidates);
            assertEquals(List.of("main", "main"), candidates.stream().map(Candidate::value).toList());
        }
        String said = screen.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("(100000 virtual threads are not completed: more than 1000; type a virtual thread's id or name in full)"), said);
        assertEquals(said.indexOf("virtual threads are not"), said.lastIndexOf("virtual threads are not"), "once: " + said);
    }

    private static List<Candidate> complete(ShellCompleter.LiveThreads live, String line, ByteArrayOutputStream screen) throws IOException {
        try (Terminal terminal = dumb(screen)) {
            LineReader reader = LineReaderBuilder.builder().terminal(terminal).build();
            List<Candidate> candidates = new ArrayList<>();
            new ShellCompleter(COMMANDS, () -> live).complete(reader, reader.getParser().parse(line, line.length()), candidates);
            return candidates;
        }
    }

    private static Terminal dumb(ByteArrayOutputStream screen) throws IOException {
        return TerminalBuilder.builder().dumb(true).streams(new ByteArrayInputStream(new byte[0]), screen).build();
    }

    private static ThreadEntry thread(long id, String name, boolean virtual) {
        return new ThreadEntry(id, name, "RUNNABLE", List.of(), true, 5, null, 0, 0, false, null, virtual, null, false, null, null, null, null, null, false);
    }
}
