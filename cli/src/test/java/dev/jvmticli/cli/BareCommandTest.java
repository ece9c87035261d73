package dev.jvmticli.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.PrintWriter;
import java.io.Writer;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** A bare {@code <command> <pid>} made without picocli is the command picocli makes of the same line. */
class BareCommandTest {
    private final CliContext context = new CliContext(new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter()));

    @ParameterizedTest
    @ValueSource(strings = {"threads 4242", "stacks 4242", "stacks -l 4242", "monitors 4242", "deadlocks 4242",
        "threads --virtual --summary 4242"})
    void aBareCommandHasTheValuesPicocliGivesIt(String line) throws IllegalAccessException {
        String[] args = line.split(" ");
        Object bare = BareCommand.of(context, args);
        Object parsed = JvmtiCli.commandLine(context).parseArgs(args).subcommand().commandSpec().userObject();
        assertNotNull(bare);
        assertSame(parsed.getClass(), bare.getClass());
        Map<String, String> expected = values(parsed, "");
        assertEquals("4242", expected.get("target.target"), "the comparison reaches into mixins");
        assertEquals(expected, values(bare, ""));
    }

    @Test
    void anyOtherCommandLineIsLeftToPicocli() {
        assertNull(BareCommand.of(context, new String[] {"threads"}));
        assertNull(BareCommand.of(context, new String[] {"threads", "--json", "4242"}));
        assertNull(BareCommand.of(context, new String[] {"stacks", "-l"}));
        assertNull(BareCommand.of(context, new String[] {"threads", "-l", "4242"}));
        assertNull(BareCommand.of(context, new String[] {"threads", "--summary", "--virtual", "4242"}));
        assertNull(BareCommand.of(context, new String[] {"stacks", "--virtual", "--summary", "4242"}));
        assertNull(BareCommand.of(context, new String[] {"stacks", "--json", "4242"}));
        assertNull(BareCommand.of(context, new String[] {"threads", "--help"}));
        assertNull(BareCommand.of(context, new String[] {"threads", ""}));
        assertNull(BareCommand.of(context, new String[] {"alloc", "4242"}));
        assertNull(BareCommand.of(context, new String[] {"4242"}));
        assertNull(BareCommand.of(context, new String[] {"threads", "@args.txt"}));
    }

    @Test
    void picocliStillParsesTheOptionsOfABareCommand() {
        CommandLine commandLine = JvmtiCli.commandLine(context);
        ThreadsCommand threads = (ThreadsCommand) commandLine.parseArgs("threads", "--sort", "cpu", "--interval", "2s", "7")
                .subcommand().commandSpec().userObject();
        assertEquals(ThreadsCommand.SortKey.cpu, threads.sort);
        assertEquals(Duration.ofSeconds(2), threads.interval);
        StacksCommand stacks = (StacksCommand) commandLine.parseArgs("stacks", "--max-depth", "3", "7")
                .subcommand().commandSpec().userObject();
        assertEquals(3, stacks.maxDepth);
    }

    /** Every option and parameter field, mixins' included, by path, as text. */
    private static Map<String, String> values(Object command, String prefix) throws IllegalAccessException {
        Map<String, String> values = new TreeMap<>();
        for (Field field : command.getClass().getDeclaredFields()) {
            field.setAccessible(true);
            Object value = field.get(command);
            if (field.isAnnotationPresent(Mixin.class)) {
                assertNotNull(value, prefix + field.getName());
                values.putAll(values(value, prefix + field.getName() + "."));
            } else if (field.isAnnotationPresent(Option.class) || field.isAnnotationPresent(Parameters.class)) {
                values.put(prefix + field.getName(), String.valueOf(value));
            }
        }
        return values;
    }
}
