package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The names of the request arguments the agent reads, from its sources (every {@code .c} file under
 * native/src, in any folder): the name a request reader is handed, {@code request_int(ctx->req,
 * "maxDepth", ...)}, or a file's own helper that hands its {@code key} to one, {@code bounded(ctx,
 * "interval", ...)}. An argument the agent starts reading is in this set with no list to update.
 * The envelope every request has ({@code v}, {@code id}, {@code cmd}) is not among them.
 */
public final class AgentArgumentNames {
    private static final Set<String> ENVELOPE = Set.of("v", "id", "cmd");
    /** A request reader of request.h (request_int, request_bool, ...) handed a name. */
    private static final String READER = "request_[a-z_]+";
    /** A function of the file that takes a key and hands it to a request reader. */
    private static final Pattern HELPER = Pattern.compile(
            "static [\\w ]+?\\**(\\w+)\\([^)]*const char \\*key[^)]*\\)\\s*\\{(?:(?!\\n\\}).)*?" + READER + "\\([^;]*\\bkey\\b",
            Pattern.DOTALL);

    private AgentArgumentNames() {
    }

    public static Set<String> all() {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Launcher.root().resolve("native/src"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".c")).toList()) {
                String source = Files.readString(file);
                StringBuilder readers = new StringBuilder(READER);
                Matcher helper = HELPER.matcher(source);
                while (helper.find()) {
                    readers.append('|').append(helper.group(1));
                }
                Matcher read = Pattern.compile("\\b(?:" + readers + ")\\(\\s*[\\w>-]+\\s*,\\s*\"([A-Za-z][A-Za-z0-9]*)\"").matcher(source);
                while (read.find()) {
                    names.add(read.group(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        names.removeAll(ENVELOPE);
        return names;
    }
}
