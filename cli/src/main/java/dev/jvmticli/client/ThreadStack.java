package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One thread of a {@link StackDump}.
 *
 * @param frames     top frame first; empty when frames were not asked for
 * @param truncated  true when the stack is deeper than the depth asked for
 * @param locked     monitors the thread owns, each with the depth of the frame that entered it
 *                   (recursive entries appear once per entering frame); null when not asked for
 * @param waitingFor what the thread is blocked on, waiting on or parked on; null when nothing
 * @param unsettled  true when the thread kept moving while its lock facts were read, so that none
 *                   could be told to belong with its state and frames: locked and waitingFor are
 *                   then left out, not known to be empty
 * @param waitUnnamed true when the thread is in Object.wait, or entering its monitor again after it,
 *                   on a monitor the source saw and did not name (JDK 25's thread snapshot of a
 *                   compiled Object.wait0): one of locked may be that monitor, which it let go of
 */
public record ThreadStack(ThreadEntry thread, List<Frame> frames, boolean truncated, List<LockedMonitor> locked,
                          WaitingFor waitingFor, @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean unsettled,
                          @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean waitUnnamed) {
    public ThreadStack(ThreadEntry thread, List<Frame> frames, boolean truncated, List<LockedMonitor> locked, WaitingFor waitingFor) {
        this(thread, frames, truncated, locked, waitingFor, false, false);
    }

    public ThreadStack(ThreadEntry thread, List<Frame> frames, boolean truncated, List<LockedMonitor> locked, WaitingFor waitingFor,
                       boolean unsettled) {
        this(thread, frames, truncated, locked, waitingFor, unsettled, false);
    }

    /** This thread with these facts about it. */
    public ThreadStack about(ThreadEntry facts) {
        return new ThreadStack(facts, frames, truncated, locked, waitingFor, unsettled, waitUnnamed);
    }

    /** This thread waiting for wait instead. */
    public ThreadStack waiting(WaitingFor wait) {
        return new ThreadStack(thread, frames, truncated, locked, wait, unsettled, waitUnnamed);
    }

    public List<Frame> frames() {
        return frames == null ? List.of() : frames;
    }

    public List<LockedMonitor> locked() {
        return locked == null ? List.of() : locked;
    }
}
