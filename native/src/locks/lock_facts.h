/* What a thread owns and waits for, as every source fills it in (locks.c's three sources,
 * thread_snapshot.c, LockSupport.getBlocker): the types, the thread they are about (lock_subject),
 * and the few things each source does alike: naming an object, reading what it saw of the
 * thread's frames, freeing the facts. Below every source, so that each depends only downward. */
#ifndef JVMTICLI_LOCK_FACTS_H
#define JVMTICLI_LOCK_FACTS_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>

typedef struct {
    jint hash;          /* identity hash code */
    char *class_name;   /* Java class name, modified UTF-8, malloc'd */
} lock_ref;

typedef struct {
    lock_ref lock;
    jint depth;         /* frame where it was entered; -1 when entered by JNI */
} owned_monitor;

/* WAIT_PARK, WAIT_SIGNAL and the WAIT_ACQUIREs are parked threads, told apart by their blocker
 * and, for an acquire, by the mode of the thread's node in the blocker's wait queue
 * (park_blocker.h): exclusive (a lock), shared (a latch, semaphore permits, a read lock), or not
 * known. */
typedef enum {
    WAIT_NONE, WAIT_ENTER, WAIT_NOTIFY, WAIT_PARK, WAIT_SIGNAL, WAIT_ACQUIRE, WAIT_ACQUIRE_SHARED, WAIT_ACQUIRE_UNKNOWN
} wait_kind;

/* What a source that looks at the thread itself (ThreadMXBean's ThreadInfo, ThreadSnapshot) saw
 * of its state and top frame in the same look as the facts: what the facts are checked against
 * (thread_moment.h). JVMTI's lock calls and LockSupport.getBlocker see the facts alone. */
typedef enum {
    WITNESS_NONE,
    WITNESS_OWN_STACK,  /* owned depths are of the witness's own frames (ThreadInfo) */
    WITNESS_MAPPED      /* owned depths were mapped onto the subject's frames (ThreadSnapshot) */
} witness_kind;

typedef struct {
    witness_kind kind;
    jint state;         /* JVMTI_JAVA_LANG_THREAD_STATE_* value */
    jint frames_seen;   /* how many frames it walked; -1 when it looked at none */
    char *top_class;    /* the top frame seen, malloc'd, when it walked any */
    char *top_method;
    jint top_line;      /* -2 native, -1 unknown */
    jint top_depth;     /* WITNESS_MAPPED: the subject's frame that top is, the first with its method
                           (below frames the witness hides, as ThreadSnapshot hides a virtual
                           thread's yield), -1 when none of them has it; 0 otherwise */
} lock_witness;

typedef struct {
    owned_monitor *owned;
    jint owned_count;
    wait_kind waiting;
    lock_ref waits_for;
    jlong owner_id;     /* the Java id of the thread owning what this one waits for, or -1 */
    int owner_unknown;  /* waits to enter a monitor whose owner no source could tell: owner_id -1
                           then says nothing */
    int wait_unnamed;   /* in Object.wait, or entering its monitor again after it, on a monitor the
                           source saw and did not name (ThreadSnapshot of a compiled Object.wait0):
                           one of owned may be that monitor, which the thread let go of */
    lock_witness seen;
} lock_facts;

typedef struct {
    jthread thread;
    jlong id;
    jint state;         /* GetThreadState bits */
    jint owned_depth;   /* frames to look at for owned monitors: 0 all of them (up to max_depth),
                           -1 none (its frames show it can own none) */
    jint height;        /* frames it had when they were taken; 0 when not taken */
    jmethodID *methods; /* the methods of those frames, top first, as deep as owned_depth says (all
                           when 0); method_count of them, malloc'd; NULL when not kept */
    jint method_count;
    int is_virtual;     /* ThreadMXBean knows nothing of it: its owners are not asked of it */
} lock_subject;

/* The identity hash and class name of an object (ref->class_name malloc'd). */
void lock_facts_describe_object(JNIEnv *jni, jobject object, lock_ref *ref);

/* What a source saw of a thread's frames: how many, and the top one (stack: StackTraceElement[]).
 * w->kind becomes WITNESS_NONE when StackTraceElement cannot be read. */
void lock_facts_witness_frames(JNIEnv *jni, jobjectArray stack, lock_witness *w);

/* Whether a source must look at this subject itself: it may own monitors (when asked for), or it
 * is blocked entering a monitor or waits in Object.wait. A parked thread alone needs only its
 * blocker (locks_collect_parked). */
int lock_subject_needs_thread_info(const lock_subject *s, int want_owned);

void lock_facts_free(lock_facts *facts, size_t count);

#endif
