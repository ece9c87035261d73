package dev.jvmticli.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AnswerReaderTest {
    private static ThreadList readThreads(String json) throws IOException {
        JsonParser parser = new JsonFactory().createParser(json);
        parser.nextToken();
        return new AnswerReader(parser).threadList();
    }

    /** The agent's stamps around its CPU reads, kept as sent; stamps not of that shape are none, never a guess. */
    @Test
    void readsTheStampsOfTheCpuReadsAndNoneWhereTheyAreMissingOrMalformed() throws IOException {
        assertEquals(new CpuRead(1000, 1500), readThreads("{\"cpuRead\":{\"startNanos\":1000,\"endNanos\":1500},\"threads\":[]}").cpuRead());
        assertNull(readThreads("{\"lockFactsComplete\":true,\"threads\":[]}").cpuRead());
        assertNull(readThreads("{\"cpuRead\":{\"startNanos\":\"soon\",\"endNanos\":1500},\"threads\":[]}").cpuRead());
        assertNull(readThreads("{\"cpuRead\":[1000,1500],\"threads\":[]}").cpuRead());
        assertEquals(new CpuRead(7, 9), read("{\"time\":1,\"cpuRead\":{\"startNanos\":7,\"endNanos\":9},\"parts\":[]}").cpuRead());
    }

    /** A span from start to start; none where either reading is unstamped, failed (-1), out of order or of no length. */
    @Test
    void aSpanOnlyBetweenTwoStampedReadingsInOrder() {
        assertEquals(OptionalLong.of(1_500_000_000L), CpuRead.span(new CpuRead(1_000, 2_000), new CpuRead(1_500_001_000L, 1_500_002_000L)));
        assertEquals(OptionalLong.empty(), CpuRead.span(null, new CpuRead(5, 6)));
        assertEquals(OptionalLong.empty(), CpuRead.span(new CpuRead(-1, -1), new CpuRead(5, 6)));
        assertEquals(OptionalLong.empty(), CpuRead.span(new CpuRead(5, 4), new CpuRead(9, 10)));
        assertEquals(OptionalLong.empty(), CpuRead.span(new CpuRead(5, 6), new CpuRead(5, 6)));
        assertEquals(OptionalLong.empty(), CpuRead.span(new CpuRead(9, 10), new CpuRead(5, 6)));
    }

    private static StackDump read(String json) throws IOException {
        JsonParser parser = new JsonFactory().createParser(json);
        parser.nextToken(); // the reader stands on the result's first token, as AgentClient leaves it
        return new AnswerReader(parser).stackDump(null);
    }

    /**
     * The agent's shape: parts, each with the nodes of the stack tree (parent, method, line) and the
     * methods it adds, numbered on from the parts before, then its threads, each naming the top node
     * of its stack and carrying its lock facts. main and worker share their two bottom frames (nodes
     * 0 and 1); worker's top node comes with the second part.
     */
    private static final String DUMP = """
            {"time":1700000000000,"lockSource":"management",
             "parts":[
              {"nodes":[[-1,2,43],[0,2,42],[1,1,215],[2,0,-2]],
               "methods":[
                {"class":"jdk.internal.misc.Unsafe","method":"park","file":"Unsafe.java","native":true},
                {"class":"java.util.concurrent.locks.LockSupport","method":"park","file":"LockSupport.java","native":false},
                {"class":"app.Main","method":"run","file":null,"native":false}],
               "threads":[
                {"thread":{"id":1,"name":"main","state":"WAITING","flags":["parked"]},"stack":3,
                 "locked":[],"waitingFor":{"kind":"park","class":"java.util.concurrent.CountDownLatch$Sync","hash":7,"ownerId":0}}]},
              {"nodes":[[1,2,42]],"methods":[],
               "threads":[
                {"thread":{"id":2,"name":"worker","state":"BLOCKED"},"stack":4,"truncated":true,
                 "locked":[{"class":"java.lang.Object","hash":9,"depth":1}]},
                {"thread":{"id":3,"name":"no-frames","state":"RUNNABLE"},"stack":-1,"locked":[],"unsettled":true}]}],
             "lockFactsComplete":true}
            """;

    @Test
    void resolvesStacksFromTheTreeAndTheMethodTable() throws IOException {
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
                new Frame("app.Main", "run", null, 42, false),
                new Frame("app.Main", "run", null, 43, false)), main.frames());
        assertEquals("park", main.waitingFor().kind());
        assertEquals(List.of(), main.locked());

        ThreadStack worker = dump.threads().get(1);
        assertEquals(List.of(
                new Frame("app.Main", "run", null, 42, false),
                new Frame("app.Main", "run", null, 42, false),
                new Frame("app.Main", "run", null, 43, false)), worker.frames());
        assertTrue(worker.truncated());
        assertEquals(List.of(new LockedMonitor("java.lang.Object", 9, 1)), worker.locked());

        assertEquals(List.of(), dump.threads().get(2).frames());
        assertTrue(dump.threads().get(2).unsettled());
    }

    @Test
    void handsEachThreadOverAsItIsRead() {
        List<String> seen = new ArrayList<>();
        StackListener listener = new StackListener() {
            @Override
            public void started(long time, List<VmThread> vmThreads) {
                seen.add("started " + time);
            }

            @Override
            public void thread(ThreadStack thread) {
                seen.add(thread.thread().name() + " " + thread.frames().size());
            }
        };
        // cut after the second thread: the first two were handed over before the answer broke off
        String cut = DUMP.substring(0, DUMP.indexOf("{\"thread\":{\"id\":3"));
        assertThrows(IOException.class, () -> {
            JsonParser parser = new JsonFactory().createParser(cut);
            parser.nextToken();
            new AnswerReader(parser).stackDump(listener);
        });
        assertEquals(List.of("started 1700000000000", "main 4", "worker 3"), seen);
    }

    @Test
    void readsLockFactsWithEachThreadWithoutFrames() throws IOException {
        StackDump dump = read("""
                {"parts":[{"threads":[{"thread":{"id":5,"state":"BLOCKED"},"waitingFor":{"kind":"enter","class":"a.B","hash":3,"ownerId":6}},
                                      {"thread":{"id":6}}]}]}
                """);
        assertEquals("enter", dump.threads().get(0).waitingFor().kind());
        assertEquals(6L, dump.threads().get(0).waitingFor().ownerId());
        assertNull(dump.threads().get(1).waitingFor());
        assertEquals(List.of(), dump.threads().get(1).frames(), "no frames asked for");
    }

    @Test
    void framesOfTheSameMethodAndLineAreOneObject() throws IOException {
        StackDump dump = read(DUMP);
        List<Frame> main = dump.threads().get(0).frames();
        List<Frame> worker = dump.threads().get(1).frames();
        assertSame(main.get(2), worker.get(1)); // the same node
        assertSame(worker.get(0), worker.get(1)); // two nodes, one method and line
        assertSame(main.get(2).className(), main.get(3).className());
    }

    @Test
    void threadsEndingAtTheSameNodeShareTheirFrames() throws IOException {
        StackDump dump = read("""
                {"parts":[{"nodes":[[-1,0,7],[0,0,8]],"methods":[{"class":"a.B","method":"c","file":"B.java","native":false}],
                           "threads":[{"thread":{"id":5},"stack":1}]},
                          {"nodes":[],"methods":[],"threads":[{"thread":{"id":6},"stack":1}]}]}
                """);
        assertSame(dump.threads().get(0).frames(), dump.threads().get(1).frames());
        assertEquals(List.of(new Frame("a.B", "c", "B.java", 8, false), new Frame("a.B", "c", "B.java", 7, false)),
                dump.threads().get(0).frames());
    }

    @Test
    void aLaterPartNumbersItsNodesAndMethodsOnFromThoseBefore() throws IOException {
        StackDump dump = read("""
                {"parts":[{"nodes":[[-1,0,7]],"methods":[{"class":"a.B","method":"c","file":"B.java","native":false}],
                           "threads":[{"thread":{"id":5},"stack":0}]},
                          {"nodes":[[0,1,9]],"methods":[{"class":"a.D","method":"e","file":"D.java","native":false}],
                           "threads":[{"thread":{"id":6},"stack":1}]}]}
                """);
        assertEquals(List.of(new Frame("a.D", "e", "D.java", 9, false), new Frame("a.B", "c", "B.java", 7, false)),
                dump.threads().get(1).frames());
        assertSame(dump.threads().get(0).frames().get(0), dump.threads().get(1).frames().get(1));
    }

    @Test
    void aTreeOrTableThatDoesNotHoldTogetherIsAnError() {
        String[] broken = {
            // a stack ending past the tree
            """
            {"parts":[{"nodes":[[-1,0,7]],"methods":[{"class":"a.B","method":"c"}],"threads":[{"thread":{"id":5},"stack":2}]}]}
            """,
            // a parent that comes after its child (a loop could follow)
            """
            {"parts":[{"nodes":[[0,0,7]],"methods":[{"class":"a.B","method":"c"}],"threads":[{"thread":{"id":5},"stack":0}]}]}
            """,
            // a method outside the table
            """
            {"parts":[{"nodes":[[-1,1,7]],"methods":[{"class":"a.B","method":"c"}],"threads":[{"thread":{"id":5},"stack":0}]}]}
            """,
            // a stack, and the tree after it (so not yet known)
            """
            {"parts":[{"threads":[{"thread":{"id":5},"stack":0}],"nodes":[[-1,0,7]],"methods":[{"class":"a.B","method":"c"}]}]}
            """,
            // a stack ending at a node a later part adds
            """
            {"parts":[{"nodes":[[-1,0,7]],"methods":[{"class":"a.B","method":"c"}],"threads":[{"thread":{"id":5},"stack":1}]},
                      {"nodes":[[0,0,8]],"methods":[],"threads":[]}]}
            """,
            // a stack that is not a node index
            """
            {"parts":[{"nodes":[[-1,0,7]],"methods":[{"class":"a.B","method":"c"}],"threads":[{"thread":{"id":5},"stack":null}]}]}
            """,
            """
            {"parts":[{"nodes":[[-1,0,7]],"methods":[{"class":"a.B","method":"c"}],"threads":[{"thread":{"id":5},"stack":"0"}]}]}
            """,
            // a chain deeper than any stack the agent sends
            chain(65537)};
        for (String json : broken) {
            assertThrows(JsonParseException.class, () -> read(json), json);
        }
    }

    /** One thread whose stack is a chain of that many nodes. */
    private static String chain(int nodes) {
        StringBuilder json = new StringBuilder("{\"parts\":[{\"nodes\":[");
        for (int i = 0; i < nodes; i++) {
            json.append(i == 0 ? "" : ",").append('[').append(i - 1).append(",0,1]");
        }
        return json.append("],\"methods\":[{\"class\":\"a.B\",\"method\":\"c\"}],\"threads\":[{\"thread\":{\"id\":5},\"stack\":")
                .append(nodes - 1).append("}]}]}").toString();
    }

    @Test
    void aVirtualThreadsAnswerWithFramesAndLocksReadsAsDatabindReadsIt() throws IOException {
        String json = """
                {"time":1700000000000,
                 "threads":[
                  {"thread":{"id":41,"name":"","state":"BLOCKED","virtual":true,"pinned":false},"stack":0,
                   "locked":[{"class":"java.lang.Object","hash":9,"depth":1}],
                   "waitingFor":{"kind":"enter","class":"java.lang.Object","hash":7,"ownerId":-1}},
                  {"thread":{"id":42,"name":"own","state":"WAITING","virtual":true,"flags":["parked"]},"truncated":true,
                   "frames":[{"class":"a.B","method":"c","file":"B.java","module":"my.app@1","line":3,"native":false},
                             {"class":"jdk.internal.misc.Unsafe","method":"park","file":"Unsafe.java","line":-2,"native":true}],
                   "locked":[],"waitingFor":{"kind":"acquire","class":"j.u.c.l.ReentrantLock$NonfairSync","hash":8,"ownerId":21}},
                  {"thread":{"id":43,"name":"moving","state":"RUNNABLE","virtual":true,"carrierId":23},"stack":0,
                   "locked":[],"unsettled":true}],
                 "stacks":[[{"class":"a.B","method":"d","file":"B.java","line":5,"native":false}]],
                 "lockSource":"snapshot","lockFactsComplete":true,"complete":true,
                 "summary":{"count":3,"mounted":1,"pinned":0,"byState":{"BLOCKED":1,"RUNNABLE":1,"WAITING":1}}}
                """;
        JsonParser parser = new JsonFactory().createParser(json);
        parser.nextToken();
        VirtualDump read = new AnswerReader(parser).virtualThreads();
        assertEquals(AgentClient.mapper().readValue(json, VirtualDump.class), read);
        assertEquals(List.of(new Frame("a.B", "d", "B.java", 5, false)), read.stacks().get(0));
        assertTrue(read.threads().get(2).unsettled());
    }

    @Test
    void aVirtualThreadsAnswerWithoutFramesReadsAsDatabindReadsIt() throws IOException {
        String json = """
                {"time":1700000000000,
                 "threads":[
                  {"thread":{"id":41,"name":"","state":"RUNNABLE","virtual":true,"carrierId":23,"cpuNanos":-1}},
                  {"thread":{"id":42,"name":"worker","state":"WAITING","virtual":true,"pinned":true,"flags":["parked"]},"truncated":true}],
                 "lockSource":"snapshot","lockFactsComplete":true,"complete":false,
                 "summary":{"count":2,"mounted":1,"pinned":1,"byState":{"RUNNABLE":1,"WAITING":1}}}
                """;
        JsonParser parser = new JsonFactory().createParser(json);
        parser.nextToken();
        assertEquals(AgentClient.mapper().readValue(json, VirtualDump.class), new AnswerReader(parser).virtualThreads());
    }
}
