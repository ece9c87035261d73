/* A virtual thread held still while the agent looks at it: suspended through JVMTI
 * (can_suspend) for the time of one look, and resumed right after. JDK 25's HotSpot reads whether
 * a virtual thread is mounted, and on which carrier, before the handshake that reads it, without
 * keeping it there: when it mounted or unmounted in between, the look crashed the target
 * (ThreadSnapshot: GetThreadSnapshotClosure::do_thread; JVMTI GetThreadListStackTraces:
 * vframeStream on a carrier without the continuation) or saw a carrier without it (a holder owning
 * nothing). A virtual thread suspended through JVMTI neither mounts nor unmounts
 * (VirtualThreadSnapshotStressIT). A platform thread needs no holding, nor, before JDK 25, a
 * virtual one (see virtual_hold.c). */
#ifndef JVMTICLI_VIRTUAL_HOLD_H
#define JVMTICLI_VIRTUAL_HOLD_H

#include <jni.h>
#include <jvmti.h>

typedef enum {
    HOLD_NOT_NEEDED,  /* a platform thread, or a virtual thread someone else suspended */
    HOLD_SUSPENDED,   /* suspended here: virtual_hold_release resumes it */
    HOLD_ENDED,       /* the thread is not alive */
    HOLD_FAILED       /* it could not be held (no can_suspend): not to be looked at */
} virtual_hold;

/* Holds thread still if it is a virtual thread. */
virtual_hold virtual_hold_take(JNIEnv *jni, jthread thread);

/* Undoes virtual_hold_take. */
void virtual_hold_release(jthread thread, virtual_hold hold);

#endif
