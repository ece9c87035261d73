package dev.jvmticli.cli;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A `package.Class.method` pattern, as `trace` and `dump --trace` take it: `*` any run of characters in the
 * class part (the agent matches it) and in the method part (the CLI matches it against the class's methods).
 */
record MethodPattern(String text, String classGlob, Predicate<String> methodWanted) {
    /** The pattern split at its last dot; one that is not Class.method is a usage error (exit 2), before any attach. */
    static MethodPattern parse(String pattern) {
        int dot = pattern.lastIndexOf('.');
        if (dot <= 0 || dot == pattern.length() - 1 || pattern.contains("?")) {
            throw new CliFailure(ExitCode.USAGE, "'" + pattern + "' is not Class.method (package.Class.method, '*' for any run of characters)");
        }
        Pattern method = Glob.toPattern(pattern.substring(dot + 1));
        return new MethodPattern(pattern, pattern.substring(0, dot), name -> method.matcher(name).matches());
    }
}
