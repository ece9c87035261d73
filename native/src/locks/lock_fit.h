/* Whether a thread's lock facts can describe the thread in the state, and with the frames, it was
 * seen in: what must hold for a dump's thread not to contradict itself. Pure logic over
 * lock_facts and JVMTI state bits.
 * - BLOCKED (entering a monitor, or entering it again after Object.wait): it waits to enter a
 *   monitor, which is not a ConditionObject (never a monitor anybody enters), and is not owned by
 *   the thread itself;
 * - "waiting on" a monitor only in Object.wait, not BLOCKED;
 * - parked on a blocker only when parked (a parked thread may have none: LockSupport.park(null));
 * - no monitor owned at a frame the thread does not have (-1, entered through JNI, is anywhere). */
#ifndef JVMTICLI_LOCK_FIT_H
#define JVMTICLI_LOCK_FIT_H

#include <jvmti.h>

#include "lock_facts.h"

typedef enum {
    LOCK_FIT_NOT,         /* they contradict each other */
    LOCK_FIT,
    LOCK_FIT_NO_MONITOR   /* nothing wrong, but BLOCKED or in Object.wait without the monitor named: a
                             source may not know it (ThreadMXBean, of one an unmounted virtual thread
                             owns; ThreadSnapshot, of a waiter woken and not yet entering again) */
} lock_fit_result;

/* How f fits a thread of this id in state (GetThreadState bits) with frame_count frames (0 when
 * its frames were not taken: depths are then not checked). */
lock_fit_result lock_fit(jint state, jint frame_count, jlong id, const lock_facts *f);

#endif
