package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class WallTimeTest {
    @Test
    void eachThreadRunsOrWaitsByItsInnermostFrameAndWaitsWhereTheApplicationCalled() {
        Profile profile = Profile.parse(List.of(
                "[spinner tid=1];java/lang/Thread.run_[j];app/Work.spin_[j] 40",
                "[sleeper tid=2];java/lang/Thread.run_[j];app/Work.nap_[j];java/lang/Thread.sleep_[0];JVM_Sleep;os::sleep;PlatformEvent::park;"
                        + "___pthread_cond_timedwait;__futex_abstimed_wait_common 38",
                "[sleeper tid=2];java/lang/Thread.run_[j];app/Work.nap_[j] 2",
                "[reader tid=3];app/Net.read_[j];sun/nio/ch/SocketDispatcher.read0_[0];__libc_read 10",
                "[VM Thread tid=4];Thread::call_run;VMThread::wait_for_operation;Monitor::wait;PlatformMonitor::wait;"
                        + "___pthread_cond_timedwait@@GLIBC_2.3.2 30",
                "[poller tid=5];sun/nio/ch/EPoll.wait_[0];__GI_epoll_wait 5"));

        List<WallTime.ThreadTime> threads = WallTime.threads(profile);

        assertEquals(new WallTime.ThreadTime("spinner", 1, 40, 40, 0, WallTime.State.RUNNING, "app.Work.spin", 40, true), threads.get(0));
        assertEquals(new WallTime.ThreadTime("sleeper", 2, 40, 2, 38, WallTime.State.WAITING, "java.lang.Thread.sleep <- app.Work.nap", 38, true),
                threads.get(1));
        // then the waiting threads with Java frames before the JVM's own, however many samples
        assertEquals("sun.nio.ch.SocketDispatcher.read0 <- app.Net.read", threads.get(2).mostlyWhere());
        assertEquals("sun.nio.ch.EPoll.wait", threads.get(3).mostlyWhere());
        assertEquals(new WallTime.ThreadTime("VM Thread", 4, 30, 0, 30, WallTime.State.WAITING, "VMThread::wait_for_operation", 30, false),
                threads.get(4));
        assertEquals(List.of(new WallTime.Wait("java.lang.Thread.sleep <- app.Work.nap", 38, 1, true),
                new WallTime.Wait("sun.nio.ch.SocketDispatcher.read0 <- app.Net.read", 10, 1, true), new WallTime.Wait("sun.nio.ch.EPoll.wait", 5, 1, true),
                new WallTime.Wait("VMThread::wait_for_operation", 30, 1, false)), WallTime.waits(profile));
        assertEquals(42, WallTime.running(profile).samples());
    }

    @Test
    void onlyBlockingSystemCallWrappersAreWaits() {
        for (String wait : List.of("__futex_abstimed_wait_common64", "__GI___poll", "epoll_wait", "__GI___clock_nanosleep", "__libc_recv",
                "___pthread_cond_wait", "__lll_lock_wait", "accept4", "read")) {
            assertEquals(true, WallTime.blockingCall(wait), wait);
        }
        for (String running : List.of("JavaThread::run", "Thread::call_run", "readBytes", "SpinPause", "memcpy", "os::javaTimeNanos")) {
            assertEquals(false, WallTime.blockingCall(running), running);
        }
    }
}
