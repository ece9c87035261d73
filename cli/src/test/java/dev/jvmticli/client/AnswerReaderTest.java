package dev.jvmticli.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnswerReaderTest {
    private static StackDump read(String json) throws IOException {
        JsonParser parser = new JsonFactory().createParser(json);
        parser.nextToken(); // the reader stands on the result's first token, as AgentClient leaves it
        return new AnswerReader(parser).stackDump();
    }

    /** The agent's shape: threads first, frames as [method, line], the frame table at the end. */
    private static final String DUMP = """
            {"time":1700000000000,"lockSource":"management","lockFactsComplete":true,
             "threads":[
              {"thread":{"id":1,"name":"main","state":"WAITING","flags":["parked"]},
               "frames":[[0,-2],[1,215],[2,42]],
               "waitingFor":{"kind":"park","class":"java.util.concurrent.CountDownLatch$Sync","hash":7,"ownerId":0}},
              {"thread":{"id":2,"name":"worker","state":"BLOCKED"},
               "frames":[[1,215],[2,42],[2,43]],"truncated":true,
               "locked":[{"class":"java.lang.Object","hash":9,"depth":1}]},
              {"thread":{"id":3,"name":"no-frames","state":"RUNNABLE"},"frames":[]}],
             "methods":[
              {"class":"jdk.internal.misc.Unsafe","method":"park","file":"Unsafe.java","native":true},
              {"class":"java.util.concurrent.locks.LockSupport","method":"park","file":"LockSupport.java","native":false},
              {"class":"app.Main","method":"run","file":null,"native":false}]}
            """;

    @Test
    void resolvesFramesAgainstTheFrameTableWrittenAfterTheThreads() throws IOException {
        StackDump dump = read(DUMP);
        assertEquals(1700000000000L, dump.time());
        assertEquals("management", dump.lockSource());
        assertTrue(dump.lockFactsComplete());
        assertEquals(3, dump.threads().size());

        ThreadStack main = dump.threads().get(0);
        assertEquals("main", main.thread().name());
        assertEquals(List.of(
                new Frame("jdk.internal.misc.Unsafe", "park", "Unsafe.java", -2, true),
                new Frame("java.util.concurrent.locks.LockSupport", "park", "LockSupport.java", 215, false),
                new Frame("app.Main", "run", null, 42, false)), main.frames());
        assertEquals("park", main.waitingFor().kind());

        ThreadStack worker = dump.threads().get(1);
        assertEquals(List.of(
                new Frame("java.util.concurrent.locks.LockSupport", "park", "LockSupport.java", 215, false),
                new Frame("app.Main", "run", null, 42, false),
                new Frame("app.Main", "run", null, 43, false)), worker.frames());
        assertTrue(worker.truncated());
        assertEquals(List.of(new LockedMonitor("java.lang.Object", 9, 1)), worker.locked());

        assertEquals(List.of(), dump.threads().get(2).frames());
    }

    @Test
    void framesOfTheSameMethodAndLineAreOneObject() throws IOException {
        StackDump dump = read(DUMP);
        List<Frame> main = dump.threads().get(0).frames();
        List<Frame> worker = dump.threads().get(1).frames();
        assertSame(main.get(1), worker.get(0));
        assertSame(main.get(2), worker.get(1));
        assertSame(main.get(2).className(), worker.get(2).className());
    }

    @Test
    void theFrameTableMayComeFirstAndFramesMayBeLeftOut() throws IOException {
        StackDump dump = read("""
                {"methods":[{"class":"a.B","method":"c","file":"B.java","native":false}],
                 "threads":[{"thread":{"id":5,"name":"t","state":"RUNNABLE"},"frames":[[0,7],null]},
                            {"thread":{"id":6,"name":"u","state":"RUNNABLE"}}],"time":1}
                """);
        assertEquals(new Frame("a.B", "c", "B.java", 7, false), dump.threads().get(0).frames().get(0));
        assertEquals(new Frame(null, null, null, -1, false), dump.threads().get(0).frames().get(1)); // not indexed
        assertEquals(List.of(), dump.threads().get(1).frames());
    }

    @Test
    void aFrameOutsideTheTableOrInTheOlderShapeIsAnError() {
        assertThrows(JsonParseException.class, () -> read("""
                {"threads":[{"thread":{"id":5},"frames":[[1,7]]}],"methods":[{"class":"a.B","method":"c"}]}
                """));
        JsonParseException older = assertThrows(JsonParseException.class, () -> read("""
                {"threads":[{"thread":{"id":5},"frames":[{"class":"a.B","method":"c","line":3}]}]}
                """));
        assertTrue(older.getOriginalMessage().contains("detach it and run again"), older.getOriginalMessage());
    }
}
