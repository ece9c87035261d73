/* The ownable synchronizers each thread holds (what jstack -l lists under "Locked ownable
 * synchronizers"): every AbstractOwnableSynchronizer in the heap (ReentrantLock's and
 * ReentrantReadWriteLock's syncs, ...) whose exclusiveOwnerThread is set, found as jstack finds
 * them: a walk of the whole heap (IterateOverInstancesOfClass, which includes subclasses), one
 * VM operation at a safepoint, the pause growing with the heap. Owners are read after the walk,
 * through JNI. Needs can_tag_objects; the tags set are all cleared before it returns. */
#ifndef JVMTICLI_SYNCHRONIZERS_H
#define JVMTICLI_SYNCHRONIZERS_H

#include <jni.h>
#include <stddef.h>

#include "lock_facts.h"

/* At most this many synchronizers are looked at; past that the answer is incomplete. */
#define SYNCHRONIZERS_MAX 65536

typedef struct {
    jlong owner_id;   /* Java id of the owning thread */
    lock_ref lock;
} owned_synchronizer;

typedef struct {
    owned_synchronizer *owned;  /* malloc'd, count of them */
    size_t count;
    size_t instances;           /* synchronizers in the heap (owned or not) */
    int complete;               /* 0 when more than SYNCHRONIZERS_MAX were found */
    long walk_micros;           /* how long the heap walk (the safepoint operation) took */
} synchronizer_owners;

/* Fills owners; returns JVMTI_ERROR_NONE or the error of the call that failed (then nothing
 * needs freeing). */
int synchronizers_collect(JNIEnv *jni, synchronizer_owners *owners);

void synchronizers_free(synchronizer_owners *owners);

#endif
