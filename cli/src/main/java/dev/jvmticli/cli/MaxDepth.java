package dev.jvmticli.cli;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;

/** The range the agent accepts for a stack depth. */
final class MaxDepth {
    static final int LIMIT = 65536;
    /** What stacks takes without --max-depth. */
    static final int DEFAULT = 8192;

    private MaxDepth() {
    }

    static void check(int maxDepth) {
        if (maxDepth < 1 || maxDepth > LIMIT) {
            throw new CliFailure(ExitCode.USAGE, "--max-depth must be between 1 and " + LIMIT);
        }
    }
}
