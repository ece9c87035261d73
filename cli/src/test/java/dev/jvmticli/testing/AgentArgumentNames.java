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
 * native/src, in any folder): a string literal handed with the request or the command's context,
 * as {@code request_int(ctx->req, "maxDepth", ...)} or a command's own helper {@code bounded(ctx,
 * "interval", ...)}. An argument the agent starts reading is in this set with no list to update.
 */
public final class AgentArgumentNames {
    private static final Pattern READ = Pattern.compile("\\(\\s*(?:ctx->req|ctx|req)\\s*,\\s*\"([A-Za-z][A-Za-z0-9]*)\"");

    private AgentArgumentNames() {
    }

    public static Set<String> all() {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Launcher.root().resolve("native/src"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".c")).toList()) {
                Matcher read = READ.matcher(Files.readString(file));
                while (read.find()) {
                    names.add(read.group(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }
}
