package dev.jvmticli.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GlobTest {
    @Test
    void starAndQuestionMarkAreWildcardsAndTheRestIsLiteral() {
        assertTrue(Glob.toPattern("pool-*-thread-?").matcher("pool-12-thread-3").matches());
        assertFalse(Glob.toPattern("pool-*-thread-?").matcher("pool-12-thread-33").matches());
        assertTrue(Glob.toPattern("a.b[c]").matcher("a.b[c]").matches());
        assertFalse(Glob.toPattern("a.b").matcher("axb").matches());
        assertTrue(Glob.toPattern("w*").matcher("weird\nname").matches());
        assertTrue(Glob.toPattern("\uD83D\uDE80?").matcher("\uD83D\uDE80\uD83D\uDE80").matches());
    }
}
