package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A resolved stack frame.
 *
 * @param line   the source line; -1 when unknown, -2 in a native method
 * @param module the named module of the method's class, with its version where it has one
 *               ({@code java.base@17.0.15}, {@code my.app}); null for an unnamed module
 */
public record Frame(@JsonProperty("class") String className, String method, String file, int line,
                    @JsonProperty("native") boolean nativeMethod,
                    @JsonInclude(JsonInclude.Include.NON_NULL) String module) {
    /** A frame of a class in an unnamed module. */
    public Frame(String className, String method, String file, int line, boolean nativeMethod) {
        this(className, method, file, line, nativeMethod, null);
    }

    // written out rather than generated: frames are compared by the hundred thousand when a large
    // dump shares its identical frames (see AnswerReader)
    @Override
    public boolean equals(Object other) {
        return other instanceof Frame f && line == f.line && nativeMethod == f.nativeMethod
                && java.util.Objects.equals(method, f.method) && java.util.Objects.equals(className, f.className)
                && java.util.Objects.equals(file, f.file) && java.util.Objects.equals(module, f.module);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(className);
        h = 31 * h + java.util.Objects.hashCode(method);
        h = 31 * h + java.util.Objects.hashCode(file);
        h = 31 * h + java.util.Objects.hashCode(module);
        h = 31 * h + line;
        return 31 * h + (nativeMethod ? 1 : 0);
    }
}
