#include "park_owner_reads.h"

#include <stddef.h>

#include "agent.h"
#include "aggregate.h"
#include "jni_util.h"
#include "own_threads.h"

/* At one read a millisecond, a helper this many reads behind has been held up 16 ms. */
#define OWNER_READS_QUEUE 16

typedef struct {
    jobject blocker;    /* global refs */
    jthread owner;
} owner_read;

static struct {
    jrawMonitorID lock;         /* guards the queue and run; only this file's code takes it */
    owner_read queue[OWNER_READS_QUEUE];
    size_t first, queued;
    int run;
    int done;
    jthread helper;
    owner_stack_keeper keep;
    uint64_t dropped;
} reads;

static void count_dropped(void) {
    __atomic_add_fetch(&reads.dropped, 1, __ATOMIC_RELAXED);
}

static void forget(JNIEnv *jni, owner_read r) {
    if (r.blocker != NULL) (*jni)->DeleteGlobalRef(jni, r.blocker);
    if (r.owner != NULL) (*jni)->DeleteGlobalRef(jni, r.owner);
}

void owner_reads_request(JNIEnv *jni, jobject blocker, jthread owner) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    owner_read r = { (*jni)->NewGlobalRef(jni, blocker), NULL };
    if (r.blocker != NULL) {
        r.owner = (*jni)->NewGlobalRef(jni, owner);
    }
    if (r.owner == NULL) {
        (void)jni_cleared_exception(jni); /* the OutOfMemoryError NewGlobalRef threw */
        forget(jni, r);
        count_dropped();
        return;
    }
    int queued = 0;
    if ((*jvmti)->RawMonitorEnter(jvmti, reads.lock) == JVMTI_ERROR_NONE) {
        if (reads.run && reads.queued < OWNER_READS_QUEUE) {
            reads.queue[(reads.first + reads.queued++) % OWNER_READS_QUEUE] = r;
            queued = 1;
            (*jvmti)->RawMonitorNotify(jvmti, reads.lock);
        }
        (*jvmti)->RawMonitorExit(jvmti, reads.lock);
    }
    if (!queued) {
        forget(jni, r);
        count_dropped();
    }
}

static void read_owner(jvmtiEnv *jvmti, JNIEnv *jni, owner_read r) {
    jvmtiFrameInfo frames[STACK_MAX_FRAMES];
    jint depth = 0;
    if ((*jvmti)->GetStackTrace(jvmti, r.owner, 0, STACK_MAX_FRAMES, frames, &depth) != JVMTI_ERROR_NONE || depth == 0) {
        return;
    }
    /* the helper never returns to Java, so what the keeper makes is freed here */
    if ((*jni)->PushLocalFrame(jni, JNI_COMMAND_LOCALS) != 0) {
        (void)jni_cleared_exception(jni);
        return;
    }
    reads.keep(jni, r.blocker, r.owner, frames, depth);
    (*jni)->PopLocalFrame(jni, NULL);
}

static void JNICALL helper_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)arg;
    for (;;) {
        if ((*jvmti)->RawMonitorEnter(jvmti, reads.lock) != JVMTI_ERROR_NONE) {
            break; /* the requests then find no reader and are dropped at the quiesce */
        }
        int waiting = 1;
        while (waiting && reads.run && reads.queued == 0) {
            waiting = (*jvmti)->RawMonitorWait(jvmti, reads.lock, 200) == JVMTI_ERROR_NONE;
        }
        if (!waiting || !reads.run) {
            (*jvmti)->RawMonitorExit(jvmti, reads.lock);
            break;
        }
        owner_read r = reads.queue[reads.first];
        reads.first = (reads.first + 1) % OWNER_READS_QUEUE;
        reads.queued--;
        (*jvmti)->RawMonitorExit(jvmti, reads.lock);
        read_owner(jvmti, jni, r);
        forget(jni, r);
    }
    __atomic_store_n(&reads.done, 1, __ATOMIC_SEQ_CST);
}

int owner_reads_open(JNIEnv *jni, owner_stack_keeper keep, const char **failure) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    reads.first = reads.queued = 0;
    reads.dropped = 0;
    reads.keep = keep;
    reads.run = 1;
    reads.done = 0;
    if ((*jvmti)->CreateRawMonitor(jvmti, "jvmti-cli park owners", &reads.lock) != JVMTI_ERROR_NONE) {
        reads.lock = NULL;
        *failure = "cannot create the owner reads' lock";
        return -1;
    }
    reads.helper = jni_new_thread(jni, "jvmti-cli park owners");
    if (reads.helper == NULL || own_threads_add(reads.helper) != 0
            || (*jvmti)->RunAgentThread(jvmti, reads.helper, helper_main, NULL, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
        if (reads.helper != NULL) {
            own_threads_remove(reads.helper);
            (*jni)->DeleteGlobalRef(jni, reads.helper);
            reads.helper = NULL;
        }
        (*jvmti)->DestroyRawMonitor(jvmti, reads.lock);
        reads.lock = NULL;
        *failure = "cannot start the owner reads' thread";
        return -1;
    }
    return 0;
}

void owner_reads_quiesce(JNIEnv *jni) {
    if (jni == NULL || reads.helper == NULL || own_threads_stop(jni, reads.lock, &reads.run, &reads.done, &reads.helper) != 0) {
        return; /* not gone: owner_reads_close keeps what it uses */
    }
    for (; reads.queued > 0; reads.queued--) {
        forget(jni, reads.queue[reads.first]);
        reads.first = (reads.first + 1) % OWNER_READS_QUEUE;
        count_dropped();
    }
}

int owner_reads_close(void) {
    if (reads.helper != NULL) {
        return -1;
    }
    if (reads.lock != NULL) {
        (*the_agent.jvmti)->DestroyRawMonitor(the_agent.jvmti, reads.lock);
        reads.lock = NULL;
    }
    return 0;
}

uint64_t owner_reads_dropped(void) {
    return __atomic_load_n(&reads.dropped, __ATOMIC_RELAXED);
}
