package dev.jvmticli.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class DumpConsistencyTest {
    /** Taken with {@code jstack -l} on Temurin 25 (shortened): every thread agrees with itself. */
    private static final String JSTACK_25 = """
            2026-12-01 08:45:12
            Full thread dump OpenJDK 64-Bit Server VM (25.0.3+9-LTS mixed mode, sharing):

            "waiter" #22 [14358] prio=5 os_prio=0 cpu=0.14ms elapsed=3.64s tid=0x00007f3cb44bb010 nid=14358 in Object.wait()  [0x00007f3c85ffe000]
               java.lang.Thread.State: WAITING (on object monitor)
            \tat java.lang.Object.wait0(java.base@25.0.3/Native Method)
            \t- waiting on <0x000000069e2dd818> (a java.lang.Object)
            \tat java.lang.Object.wait(java.base@25.0.3/Object.java:389)
            \tat S.lambda$main$0(S.java:5)
            \t- locked <0x000000069e2dd818> (a java.lang.Object)
            \tat java.lang.Thread.run(java.base@25.0.3/Thread.java:1474)

               Locked ownable synchronizers:
            \t- None

            "holder" #23 [14384] prio=5 os_prio=0 cpu=0.14ms elapsed=3.54s tid=0x00007f3cb44c25d0 nid=14384 waiting on condition  [0x00007f3c85efe000]
               java.lang.Thread.State: TIMED_WAITING (sleeping)
            \tat java.lang.Thread.sleepNanos0(java.base@25.0.3/Native Method)
            \tat java.lang.Thread.sleep(java.base@25.0.3/Thread.java:540)
            \tat S.lambda$main$1(S.java:7)
            \t- locked <0x000000069e2dd818> (a java.lang.Object)

               Locked ownable synchronizers:
            \t- None

            "blocked" #24 [14385] prio=5 os_prio=0 cpu=0.15ms elapsed=3.44s tid=0x00007f3cb44c7a20 nid=14385 waiting for monitor entry  [0x00007f3c85dfe000]
               java.lang.Thread.State: BLOCKED (on object monitor)
            \tat S.lambda$main$2(S.java:9)
            \t- waiting to lock <0x000000069e2dd818> (a java.lang.Object)
            \tat java.lang.Thread.run(java.base@25.0.3/Thread.java:1474)

               Locked ownable synchronizers:
            \t- None

            "await" #25 [14386] prio=5 os_prio=0 cpu=0.91ms elapsed=3.44s tid=0x00007f3cb44c8a30 nid=14386 waiting on condition  [0x00007f3c85cfe000]
               java.lang.Thread.State: WAITING (parking)
            \tat jdk.internal.misc.Unsafe.park(java.base@25.0.3/Native Method)
            \t- parking to wait for  <0x000000069e2ddbf8> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)
            \tat java.util.concurrent.locks.LockSupport.park(java.base@25.0.3/LockSupport.java:369)
            \tat java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(java.base@25.0.3/AbstractQueuedSynchronizer.java:1752)

               Locked ownable synchronizers:
            \t- <0x000000069e2ddbe0> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)

            "relock" #26 [14390] prio=5 os_prio=0 cpu=0.10ms elapsed=3.40s tid=0x00007f3cb44c8a99 nid=14390 waiting for monitor entry  [0x00007f3c85cfe000]
               java.lang.Thread.State: BLOCKED (on object monitor)
            \tat java.lang.Object.wait0(java.base@25.0.3/Native Method)
            \t- waiting to re-lock in wait() <0x000000069e2dd818> (a java.lang.Object)
            \tat java.lang.Object.wait(java.base@25.0.3/Object.java:389)

            "relock-25" #28 [14392] prio=5 os_prio=0 cpu=0.10ms elapsed=3.40s tid=0x00007f3cb44c8a97 nid=14392 waiting for monitor entry  [0x00007f3c85cfe000]
               java.lang.Thread.State: BLOCKED (on object monitor)
            \tat java.lang.Object.wait0(java.base@25.0.3/Native Method)
            \t- waiting on <0x000000069e2dd818> (a java.lang.Object)

            "busy" #27 [14391] prio=5 os_prio=0 cpu=9.10ms elapsed=3.40s tid=0x00007f3cb44c8a98 nid=14391 runnable  [0x00007f3c85cfe000]
               java.lang.Thread.State: RUNNABLE
            \tat S.spin(S.java:20)

            "VM Thread" os_prio=0 cpu=1.20ms elapsed=4.01s tid=0x00007f3cb4123450 nid=14300 runnable

            Found one Java-level deadlock:
            =============================
            "a":
              waiting to lock monitor 0x00007f3c6c003100 (object 0x000000069e2dd818, a java.lang.Object),
              which is held by "b"

            Java stack information for the threads listed above:
            ===================================================
            "a":
            \tat S.lambda$main$9(S.java:30)
            \t- waiting to lock <0x000000069e2dd818> (a java.lang.Object)
            """;

    @Test
    void aConsistentJstackDumpHasNoFindings() {
        assertEquals(List.of(), DumpConsistency.inconsistentThreads(JSTACK_25));
        assertEquals(List.of(), DumpConsistency.missingBlockers(JSTACK_25));
        assertEquals(List.of(), DumpConsistency.missingWaitedMonitors(JSTACK_25));
        assertEquals(7, DumpConsistency.threadCount(JSTACK_25));
    }

    @Test
    void findsTheContradictionsSeenUnderLoad() {
        String text = """
                "exec-24" #44 daemon prio=5 nid=0x2c waiting on condition
                   java.lang.Thread.State: TIMED_WAITING (parking)
                \tat shop.InventoryServlet.reserve(ShopServer.java:54)
                \t- parking to wait for  <0x1> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)
                \t- locked <0x2> (a java.lang.Object)

                "exec-43" #63 daemon prio=5 nid=0x3f waiting for monitor entry
                   java.lang.Thread.State: BLOCKED (on object monitor)
                \tat jdk.internal.misc.Unsafe.park(Native Method)
                \t- waiting to lock <0x1> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)

                "exec-7" #27 daemon prio=5 nid=0x1b runnable
                   java.lang.Thread.State: RUNNABLE
                \tat jdk.internal.misc.Unsafe.park(Native Method)
                \t- parking to wait for  <0x3> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)

                "exec-8" #28 daemon prio=5 nid=0x1c waiting for monitor entry
                   java.lang.Thread.State: BLOCKED (on object monitor)
                \tat shop.Cart.add(Cart.java:10)

                "exec-9" #29 daemon prio=5 nid=0x1d in Object.wait()
                   java.lang.Thread.State: TIMED_WAITING (on object monitor)
                \tat shop.Cart.add(Cart.java:10)
                \t- waiting on <0x4> (a java.lang.Object)

                "exec-10" #30 daemon prio=5 nid=0x1e waiting for monitor entry
                   java.lang.Thread.State: BLOCKED (on object monitor)
                \tat shop.Cart.add(Cart.java:10)
                \tat shop.Cart.run(Cart.java:20)
                \t- waiting to lock <0x5> (a java.lang.Object)

                "exec-11" #31 daemon prio=5 nid=0x1f waiting for monitor entry
                   java.lang.Thread.State: BLOCKED (on object monitor)
                \tat shop.Cart.add(Cart.java:10)
                \t- waiting to lock <0x5> (a java.lang.Object)
                \t- owned by "exec-11" #31

                "exec-12" #32 daemon prio=5 nid=0x20 waiting on condition
                   java.lang.Thread.State: TIMED_WAITING (sleeping)
                \tat jdk.internal.misc.Unsafe.park(Native Method)
                """;
        assertEquals(List.of(
                "\"exec-24\" TIMED_WAITING (parking) at shop.InventoryServlet.reserve: parking without Unsafe.park on top",
                "\"exec-43\" BLOCKED (on object monitor) at jdk.internal.misc.Unsafe.park: waits to lock a ConditionObject; BLOCKED at Unsafe.park",
                "\"exec-7\" RUNNABLE at jdk.internal.misc.Unsafe.park: RUNNABLE with a 'parking to wait for' line",
                "\"exec-8\" BLOCKED (on object monitor) at shop.Cart.add: BLOCKED without waiting to lock",
                "\"exec-9\" TIMED_WAITING (on object monitor) at shop.Cart.add: waiting on object monitor without Object.wait on top",
                "\"exec-10\" BLOCKED (on object monitor) at shop.Cart.add: 'waiting to lock' under frame 1, not the top",
                "\"exec-11\" BLOCKED (on object monitor) at shop.Cart.add: waits for a monitor it owns itself",
                "\"exec-12\" TIMED_WAITING (sleeping) at jdk.internal.misc.Unsafe.park: sleeping without Thread.sleep on top"),
                DumpConsistency.inconsistentThreads(text));
    }

    @Test
    void aParkedThreadWithoutItsBlockerIsMissingNotInconsistent() {
        String text = """
                "pool-1" #12 prio=5 waiting on condition
                   java.lang.Thread.State: WAITING (parking)
                \tat jdk.internal.misc.Unsafe.park(Native Method)
                \tat java.util.concurrent.locks.LockSupport.park(LockSupport.java:341)

                "pool-2" #13 prio=5 in Object.wait()
                   java.lang.Thread.State: WAITING (on object monitor)
                \tat java.lang.Object.wait(Native Method)
                """;
        assertEquals(List.of(), DumpConsistency.inconsistentThreads(text));
        assertEquals(List.of("\"pool-1\" WAITING (parking) at jdk.internal.misc.Unsafe.park: no parking to wait for line"),
                DumpConsistency.missingBlockers(text));
        assertEquals(List.of("\"pool-2\" WAITING (on object monitor) at java.lang.Object.wait: no waiting on line"),
                DumpConsistency.missingWaitedMonitors(text));
    }

    @Test
    void anUnsettledThreadIsCountedApart() {
        String text = """
                "exec-3" #23 prio=5 waiting for monitor entry
                   java.lang.Thread.State: BLOCKED (on object monitor)
                   Lock lines left out: the thread moved between reads on each of 3 tries
                \tat shop.Cart.add(Cart.java:10)
                """;
        assertEquals(List.of(), DumpConsistency.inconsistentThreads(text));
        assertEquals(List.of(), DumpConsistency.missingBlockers(text));
        assertEquals(List.of("\"exec-3\" BLOCKED (on object monitor) at shop.Cart.add"), DumpConsistency.unsettledThreads(text));
    }
}
