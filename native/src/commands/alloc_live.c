/* The live-object table of `alloc --live` (alloc_live.h).
 *
 * Ages are counted with sentinels, not with GarbageCollectionFinish events: JVMTI posts those per
 * pause, which under ZGC is three or more per cycle, and an object allocated during a concurrent
 * cycle outlives that cycle without having been looked at. So every PRUNE_MILLIS the pruner
 * allocates an unreachable object and keeps a weak ref to it: a sentinel. The collections that
 * clear them are counted in a collection_ledger. A sentinel's index is published before it is
 * allocated, so a sample that read index k is older than sentinel k + 1.
 *
 * Entries: a callback makes the weak ref outside the lock, then takes a free slot under it and
 * marks it used last; only the pruner (and, once it has stopped, the agent thread) frees a used
 * slot, so it reads a used slot's ref and calls IsSameObject/DeleteWeakGlobalRef holding nothing,
 * and gives the slots back under the lock in batches. It prunes after each poll that finds
 * sentinels cleared and after each GarbageCollectionFinish (gc_count), the only times objects die. */
#include "alloc_live.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "collection_ledger.h"
#include "gc_count.h"
#include "jni_util.h"
#include "own_threads.h"

#define PRUNE_MILLIS 20
#define SENTINELS 1024          /* outstanding at once: 20 s without a collection at one per poll */
#define FREE_BATCH 1024

typedef struct {
    jweak ref;
    const stack_entry *stack;
    uint64_t bytes;
    uint32_t next_sentinel;     /* the sentinel allocated after this sample */
    int used;
} live_entry;

static struct {
    jrawMonitorID lock;
    live_entry *entries;        /* LIVE_CAPACITY */
    uint32_t *free_slots;       /* a stack of free entry indices */
    size_t free_count;
    uint32_t newest_sentinel;   /* its index, published before it is allocated */
    jweak sentinels[SENTINELS]; /* a FIFO of the sentinels not yet cleared, oldest at first */
    uint32_t sentinel_index[SENTINELS];
    size_t first, outstanding;
    collection_ledger collections;
    uint64_t budget;            /* the sampled bytes the table may follow at once */
    uint64_t largest;           /* the largest sample it follows; 0: any */
    uint64_t tracked_bytes;     /* the sampled bytes of its used entries */
    jclass object_class;
    jthread pruner;
    int run;
    int done;
    uint64_t tracked, too_large, table_full, over_budget, no_ref, collected;
} live;

static _Thread_local int on_pruner;

int live_own_thread(void) {
    return on_pruner;
}

jweak live_ref(JNIEnv *jni, jobject object, uint64_t bytes) {
    if (live.largest > 0 && bytes > live.largest) {
        __atomic_add_fetch(&live.too_large, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    if ((*jni)->ExceptionCheck(jni)) {
        __atomic_add_fetch(&live.no_ref, 1, __ATOMIC_RELAXED);
        return NULL; /* no JNI call but a few may be made with an exception pending */
    }
    jweak ref = (*jni)->NewWeakGlobalRef(jni, object);
    if (ref == NULL) {
        (void)jni_cleared_exception(jni); /* the OutOfMemoryError NewWeakGlobalRef threw: none was pending */
        __atomic_add_fetch(&live.no_ref, 1, __ATOMIC_RELAXED);
    }
    return ref;
}

int live_put(jweak ref, const stack_entry *stack, uint64_t bytes) {
    if (live.free_count == 0) {
        live.table_full++;
        return -1;
    }
    if (bytes > live.budget - live.tracked_bytes) {
        live.over_budget++;
        return -1;
    }
    live.tracked_bytes += bytes;
    uint32_t i = live.free_slots[--live.free_count];
    live.entries[i].ref = ref;
    live.entries[i].stack = stack;
    live.entries[i].bytes = bytes;
    live.entries[i].next_sentinel = __atomic_load_n(&live.newest_sentinel, __ATOMIC_SEQ_CST) + 1;
    __atomic_store_n(&live.entries[i].used, 1, __ATOMIC_RELEASE);
    live.tracked++;
    return 0;
}

/* Pops the sentinels found cleared, and tells the ledger. 1 if there were some. */
static int observe_sentinels(JNIEnv *jni) {
    int cleared = 0;
    uint32_t newest = 0;
    while (live.outstanding > 0 && (*jni)->IsSameObject(jni, live.sentinels[live.first], NULL)) {
        (*jni)->DeleteWeakGlobalRef(jni, live.sentinels[live.first]);
        newest = live.sentinel_index[live.first];
        live.first = (live.first + 1) % SENTINELS;
        live.outstanding--;
        cleared = 1;
    }
    if (cleared) {
        ledger_observe(&live.collections, newest, live.newest_sentinel);
    }
    return cleared;
}

static void add_sentinel(JNIEnv *jni) {
    if (live.outstanding == SENTINELS) {
        return; /* samples keep the index until one fits: they are older than it still */
    }
    uint32_t index = live.newest_sentinel + 1;
    __atomic_store_n(&live.newest_sentinel, index, __ATOMIC_SEQ_CST);
    jobject sentinel = (*jni)->AllocObject(jni, live.object_class);
    if (jni_failed(jni, sentinel)) {
        return;
    }
    jweak ref = (*jni)->NewWeakGlobalRef(jni, sentinel);
    (*jni)->DeleteLocalRef(jni, sentinel);
    if (jni_failed(jni, ref)) {
        return;
    }
    size_t at = (live.first + live.outstanding++) % SENTINELS;
    live.sentinels[at] = ref;
    live.sentinel_index[at] = index;
}

static void give_back(jvmtiEnv *jvmti, const uint32_t *slots, size_t count) {
    (*jvmti)->RawMonitorEnter(jvmti, live.lock);
    for (size_t k = 0; k < count; k++) {
        live.tracked_bytes -= live.entries[slots[k]].bytes;
        live.entries[slots[k]].used = 0;
        live.free_slots[live.free_count++] = slots[k];
    }
    live.collected += count;
    (*jvmti)->RawMonitorExit(jvmti, live.lock);
}

/* Frees the entries whose objects were collected. */
static void prune(jvmtiEnv *jvmti, JNIEnv *jni) {
    uint32_t freed[FREE_BATCH];
    size_t count = 0;
    for (uint32_t i = 0; i < LIVE_CAPACITY; i++) {
        live_entry *e = &live.entries[i];
        if (!__atomic_load_n(&e->used, __ATOMIC_ACQUIRE) || !(*jni)->IsSameObject(jni, e->ref, NULL)) {
            continue;
        }
        (*jni)->DeleteWeakGlobalRef(jni, e->ref);
        freed[count++] = i;
        if (count == FREE_BATCH) {
            give_back(jvmti, freed, count);
            count = 0;
        }
    }
    give_back(jvmti, freed, count);
}

static void JNICALL pruner_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)arg;
    on_pruner = 1;
    int64_t gcs_pruned = gc_count_now();
    (*jvmti)->RawMonitorEnter(jvmti, live.lock);
    while (live.run) {
        (*jvmti)->RawMonitorWait(jvmti, live.lock, PRUNE_MILLIS);
        if (!live.run) {
            break;
        }
        (*jvmti)->RawMonitorExit(jvmti, live.lock);
        int collected = observe_sentinels(jni);
        add_sentinel(jni);
        int64_t gcs = gc_count_now();
        if (collected || gcs != gcs_pruned) {
            gcs_pruned = gcs;
            prune(jvmti, jni);
        }
        (*jvmti)->RawMonitorEnter(jvmti, live.lock);
    }
    (*jvmti)->RawMonitorExit(jvmti, live.lock);
    __atomic_store_n(&live.done, 1, __ATOMIC_SEQ_CST);
}

static void free_memory(void) {
    free(live.entries);
    free(live.free_slots);
    live.entries = NULL;
    live.free_slots = NULL;
}

int live_open(JNIEnv *jni, jrawMonitorID lock, int cleared_in_pauses, uint64_t budget, uint64_t largest, const char **failure) {
    live.lock = lock;
    live.entries = calloc(LIVE_CAPACITY, sizeof *live.entries);
    live.free_slots = malloc(LIVE_CAPACITY * sizeof *live.free_slots);
    if (live.entries == NULL || live.free_slots == NULL) {
        free_memory();
        *failure = "cannot allocate the live-object table";
        return -1;
    }
    for (uint32_t i = 0; i < LIVE_CAPACITY; i++) {
        live.free_slots[i] = LIVE_CAPACITY - 1 - i;
    }
    live.free_count = LIVE_CAPACITY;
    live.newest_sentinel = 0;
    live.first = live.outstanding = 0;
    ledger_init(&live.collections, cleared_in_pauses);
    live.budget = budget;
    live.largest = largest;
    live.tracked_bytes = 0;
    live.tracked = live.too_large = live.table_full = live.over_budget = live.no_ref = live.collected = 0;
    live.object_class = jni_global_class(jni, "java/lang/Object");
    live.pruner = live.object_class == NULL ? NULL : jni_new_thread(jni, "jvmti-cli alloc --live");
    live.run = 1;
    live.done = 0;
    if (live.pruner == NULL || own_threads_add(live.pruner) != 0
            || (*the_agent.jvmti)->RunAgentThread(the_agent.jvmti, live.pruner, pruner_main, NULL,
                                                  JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
        live.run = 0;
        if (live.pruner != NULL) {
            own_threads_remove(live.pruner);
            (*jni)->DeleteGlobalRef(jni, live.pruner);
        }
        if (live.object_class != NULL) (*jni)->DeleteGlobalRef(jni, live.object_class);
        live.pruner = NULL;
        live.object_class = NULL;
        free_memory();
        *failure = "cannot start the live-object pruner thread";
        return -1;
    }
    return 0;
}

void live_quiesce(JNIEnv *jni) {
    if (jni != NULL && live.pruner != NULL) {
        (void)own_threads_stop(jni, live.lock, &live.run, &live.done, &live.pruner); /* not gone: live_close keeps what it uses */
    }
}

void live_survivors(JNIEnv *jni, void (*visit)(void *arg, const stack_entry *stack, uint64_t bytes, uint32_t age, jweak ref), void *arg) {
    (void)observe_sentinels(jni);
    for (uint32_t i = 0; i < LIVE_CAPACITY; i++) {
        const live_entry *e = &live.entries[i];
        if (e->used && !(*jni)->IsSameObject(jni, e->ref, NULL)) {
            visit(arg, e->stack, e->bytes, ledger_age(&live.collections, e->next_sentinel), e->ref);
        }
    }
}

void live_write_counts(json_writer *w) {
    json_field_int(w, "capacity", LIVE_CAPACITY);
    json_field_int(w, "tracked", (int64_t)live.tracked);
    json_field_int(w, "largestBytes", (int64_t)live.largest);
    json_field_int(w, "tooLarge", (int64_t)__atomic_load_n(&live.too_large, __ATOMIC_RELAXED));
    json_field_int(w, "tableFull", (int64_t)live.table_full);
    json_field_int(w, "budgetBytes", (int64_t)live.budget);
    json_field_int(w, "overBudget", (int64_t)live.over_budget);
    json_field_int(w, "noReference", (int64_t)__atomic_load_n(&live.no_ref, __ATOMIC_RELAXED));
    json_field_int(w, "collected", (int64_t)live.collected);
    json_field_int(w, "collections", (int64_t)live.collections.settled);
}

int live_close(JNIEnv *jni) {
    if (live.pruner != NULL || jni == NULL) {
        return -1;
    }
    for (uint32_t i = 0; live.entries != NULL && i < LIVE_CAPACITY; i++) {
        if (live.entries[i].used) {
            (*jni)->DeleteWeakGlobalRef(jni, live.entries[i].ref);
            live.entries[i].used = 0;
        }
    }
    for (; live.outstanding > 0; live.outstanding--) {
        (*jni)->DeleteWeakGlobalRef(jni, live.sentinels[live.first]);
        live.first = (live.first + 1) % SENTINELS;
    }
    if (live.object_class != NULL) {
        (*jni)->DeleteGlobalRef(jni, live.object_class);
        live.object_class = NULL;
    }
    free_memory();
    return 0;
}
