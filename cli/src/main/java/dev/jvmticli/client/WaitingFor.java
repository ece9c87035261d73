package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a thread waits for.
 *
 * @param kind    {@code enter} (BLOCKED entering a monitor), {@code notify} (in Object.wait),
 *                {@code acquire} (parked acquiring a synchronizer: an AbstractQueuedSynchronizer such
 *                as a ReentrantLock's or a CountDownLatch's, an AbstractQueuedLongSynchronizer, a
 *                StampedLock),
 *                {@code signal} (parked in Condition.await* on an AQS ConditionObject, which has no
 *                owner) or {@code park} (parked on another blocker, such as a FutureTask)
 * @param ownerId   the Java id of the thread that owns it, -1 when none or unknown
 * @param enteredAt in Object.wait ({@code notify}): the depth of the frame that entered the monitor
 *                  and takes it back when woken (jstack's {@code - locked} line for it); null where
 *                  the frames do not tell for certain
 * @param ownerUnknown true when no source could tell who owns the monitor it waits to enter: an
 *                  ownerId of -1 then does not say that nobody does
 * @param shared    for {@code acquire}: true when the thread waits in a shared acquire (a latch,
 *                  semaphore permits, a read lock), false in an exclusive one (a lock), null when
 *                  its mode is not known (the agent did not find its node in the wait queue)
 */
public record WaitingFor(String kind, @JsonProperty("class") String className, long hash, long ownerId,
                         @JsonInclude(JsonInclude.Include.NON_NULL) Integer enteredAt,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean ownerUnknown,
                         @JsonInclude(JsonInclude.Include.NON_NULL) Boolean shared) {
    public WaitingFor(String kind, String className, long hash, long ownerId) {
        this(kind, className, hash, ownerId, null, false, null);
    }

    public WaitingFor(String kind, String className, long hash, long ownerId, Integer enteredAt, boolean ownerUnknown) {
        this(kind, className, hash, ownerId, enteredAt, ownerUnknown, null);
    }

    /** This wait, with the depth of the frame that entered the monitor waited on. */
    public WaitingFor enteredAt(int depth) {
        return new WaitingFor(kind, className, hash, ownerId, depth, ownerUnknown, shared);
    }

    @JsonIgnore
    public LockRef lock() {
        return new LockRef(className, hash);
    }

    /**
     * Contends for it: waits to enter a monitor, to acquire a synchronizer exclusively, or to acquire
     * one in any mode that someone owns (a read lock behind its writer). A shared acquire of what
     * nobody owns (a latch, semaphore permits) waits for an event, not for a holder.
     */
    @JsonIgnore
    public boolean contends() {
        return kind.equals("enter") || kind.equals("acquire") && (Boolean.FALSE.equals(shared) || hasOwner());
    }

    /** Parked acquiring, shared or in a mode not known, what nobody owns: a latch's or a semaphore's waiter. */
    @JsonIgnore
    public boolean awaitsRelease() {
        return kind.equals("acquire") && !contends();
    }

    /** Waits to be notified (Object.wait) or signalled (Condition.await*). */
    @JsonIgnore
    public boolean awaitsSignal() {
        return kind.equals("notify") || kind.equals("signal");
    }

    /** Parked (LockSupport.park) on whatever blocker. */
    @JsonIgnore
    public boolean parked() {
        return kind.equals("park") || kind.equals("acquire") || kind.equals("signal");
    }

    @JsonIgnore
    public boolean hasOwner() {
        return ownerId >= 0;
    }
}
