package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.PoolTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.TargetsPerJdk;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Native ids and OS-thread states against jstack's, on a pool whose fifty-odd thread names the
 * kernel cuts to the same 15 bytes, some burning CPU, some parked, some coming and going.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NativeIdsIT {
    @RegisterExtension
    static final TargetsPerJdk targets = TargetsPerJdk.of(PoolTarget.class);

    /**
     * A thread's header in jstack: {@code "name" #12 daemon prio=5 ... tid=0x... nid=0x1a2b waiting on condition  [0x...]}
     * before JDK 19, {@code "name" #12 [6699] daemon ... nid=6699 ...} since.
     */
    private static final Pattern JSTACK_HEADER = Pattern.compile(
            "(?m)^\"([^\"\n]*)\" #(\\d+) (?:\\[\\d+\\] )?.*? tid=(0x[0-9a-f]+) nid=(?:0x([0-9a-f]+)|(\\d+)) ([^\\[\n]*?)\\s*(?:\\[0x[0-9a-f]+\\])?$");

    private record JstackThread(String name, long nid, String tid, String words) {
    }

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private static Map<Long, JstackThread> jstack(Jdks.Jdk jdk, TargetJvm target) throws Exception {
        Process jstack = new ProcessBuilder(jdk.home().resolve("bin/jstack").toString(), Long.toString(target.pid()))
                .redirectErrorStream(true).start();
        String dump = new String(jstack.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, jstack.waitFor(), dump);
        Map<Long, JstackThread> threads = new HashMap<>();
        Matcher header = JSTACK_HEADER.matcher(dump);
        while (header.find()) {
            long nid = header.group(4) != null ? Long.parseLong(header.group(4), 16) : Long.parseLong(header.group(5));
            threads.put(Long.parseLong(header.group(2)), new JstackThread(header.group(1), nid, header.group(3), header.group(6)));
        }
        return threads;
    }

    private static JsonNode threadsJson(TargetJvm target) {
        Result result = CliRun.run("threads", Long.toString(target.pid()), "--json");
        assertEquals(0, result.exit(), result.toString());
        return Json.parse(result.out()).path("threads");
    }

    /** Every thread in both answers (the short-lived ones may have ended between): the same nid and tid. */
    private static void assertSameNids(JsonNode ours, Map<Long, JstackThread> theirs, String when) {
        List<String> wrong = new ArrayList<>();
        int pool = 0;
        for (JsonNode thread : ours) {
            JstackThread jstack = theirs.get(thread.path("id").asLong());
            if (jstack == null) {
                continue;
            }
            String name = thread.path("name").asText();
            pool += name.startsWith(PoolTarget.PREFIX) ? 1 : 0;
            if (thread.path("nid").asLong() != jstack.nid() || !jstack.tid().equals(thread.path("tid").asText())) {
                wrong.add(name + ": nid " + thread.path("nid").asLong() + " tid " + thread.path("tid").asText()
                        + ", jstack: nid " + jstack.nid() + " tid " + jstack.tid());
            }
        }
        assertEquals(List.of(), wrong, when);
        assertTrue(pool >= PoolTarget.WORKERS + 2, when + ": " + pool + " pool threads compared");
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void everyNidIsJstacksInOneSessionAndAfterReattaching(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        for (int request = 1; request <= 2; request++) {
            assertSameNids(threadsJson(target), jstack(jdk, target), "request " + request);
        }
        Result detach = CliRun.run("detach", Long.toString(target.pid()));
        assertEquals(0, detach.exit(), detach.toString());
        assertSameNids(threadsJson(target), jstack(jdk, target), "after detach and a new attach");
    }

    /** {@code "name" #id ... nid=0x1a2b <words>} of each thread in our stacks text, by Java id. */
    private static Map<Long, String> headerWords(TargetJvm target, String... options) {
        List<String> args = new ArrayList<>(List.of("stacks", Long.toString(target.pid())));
        args.addAll(List.of(options));
        Result stacks = CliRun.run(args.toArray(String[]::new));
        assertEquals(0, stacks.exit(), stacks.toString());
        Map<Long, String> words = new HashMap<>();
        Matcher header = Pattern.compile("(?m)^\"[^\"\n]*\" #(\\d+) .*? nid=0x[0-9a-f]+ (.*)$").matcher(stacks.out());
        while (header.find()) {
            words.put(Long.parseLong(header.group(1)), header.group(2));
        }
        return words;
    }

    /**
     * The header's last words against jstack's, for the threads that stay put: idle workers parked
     * in the queue, the poller in Object.wait, the acceptor in accept, and the JDK's Reference
     * Handler and Signal Dispatcher (RUNNABLE in Java, waiting on a VM condition in HotSpot).
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void headerStatesAreJstacks(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        JsonNode threads = threadsJson(target);
        Map<Long, String> ours = headerWords(target);
        Map<Long, JstackThread> theirs = jstack(jdk, target);
        List<String> stable = new ArrayList<>(List.of(PoolTarget.PREFIX + "Acceptor", PoolTarget.PREFIX + "Poller",
                "Reference Handler", "Signal Dispatcher"));
        for (JsonNode thread : threads) {
            if (thread.path("name").asText().startsWith(PoolTarget.PREFIX + "exec-") && thread.path("state").asText().equals("WAITING")) {
                stable.add(thread.path("name").asText());
            }
        }
        assertTrue(stable.size() >= PoolTarget.WORKERS - PoolTarget.BUSY, stable.toString());
        for (String name : stable) {
            long id = Json.find(threads, "name", name).path("id").asLong();
            assertEquals(theirs.get(id).words(), ours.get(id), name);
        }
        assertEquals("in Object.wait()", Json.find(threads, "name", PoolTarget.PREFIX + "Poller").path("osState").asText());
        assertEquals("runnable", Json.find(threads, "name", PoolTarget.PREFIX + "Acceptor").path("osState").asText());
        assertEquals("waiting on condition", Json.find(threads, "name", "Reference Handler").path("osState").asText());
    }

    /**
     * The Attach Listener cannot be compared with jstack's: jstack sees it serving jstack itself,
     * waiting for the VM thread ("waiting on condition"), while between requests it waits in
     * accept(), which HotSpot records as "runnable". The Serviceability Agent (jhsdb jstack) reads
     * the same records from outside, without asking the Attach Listener: its words are the reference.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void theAttachListenersHeaderSaysWhatHotSpotRecords(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        Map<Long, String> ours = headerWords(target, "--thread", "Attach Listener");
        assertEquals(1, ours.size(), ours.toString());
        Process jhsdb = new ProcessBuilder(jdk.home().resolve("bin/jhsdb").toString(), "jstack", "--pid", Long.toString(target.pid()))
                .redirectErrorStream(true).start();
        String dump = new String(jhsdb.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, jhsdb.waitFor(), dump);
        Matcher sa = Pattern.compile("(?m)^\"Attach Listener\" #(\\d+) .*? nid=(?:0x)?[0-9a-f]+ ([^\\[\n]*?)\\s*\\[0x[0-9a-f]+\\]$").matcher(dump);
        assertTrue(sa.find(), dump);
        assertEquals(sa.group(2), ours.get(Long.parseLong(sa.group(1))));
    }
}
