#include "thread_set.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "hotspot_threads.h"
#include "jni_util.h"
#include "thread_allocation.h"

int thread_set_wants(const request *req, jlong id) {
    if (request_get(req, "threads") == NULL) {
        return 1;
    }
    size_t count = 0;
    const int64_t *ids = request_ints(req, "threads", &count);
    for (size_t i = 0; i < count; i++) {
        if (ids[i] == id) {
            return 1;
        }
    }
    return 0;
}

jvmtiError thread_set_collect(JNIEnv *jni, const request *req, thread_set *set) {
    memset(set, 0, sizeof *set);
    jvmtiError err = (*the_agent.jvmti)->GetAllThreads(the_agent.jvmti, &set->all_count, &set->all);
    if (err != JVMTI_ERROR_NONE) {
        return err;
    }
    jni_reserve_locals(jni, set->all_count);
    size_t room = set->all_count > 0 ? (size_t)set->all_count : 1;
    set->threads = calloc(room, sizeof *set->threads);
    set->facts = calloc(room, sizeof *set->facts);
    set->subjects = calloc(room, sizeof *set->subjects);
    set->moments = calloc(room, sizeof *set->moments);
    set->natives = calloc(room, sizeof *set->natives);
    set->complete = request_get(req, "threads") == NULL;
    set->with_usage = request_bool(req, "usage", 0);
    set->allocated_bytes = set->with_usage ? calloc(room, sizeof *set->allocated_bytes) : NULL;
    for (size_t i = 0; set->allocated_bytes != NULL && i < room; i++) {
        set->allocated_bytes[i] = -1;
    }
    if ((set->with_usage && set->allocated_bytes == NULL) || set->threads == NULL || set->facts == NULL || set->subjects == NULL || set->moments == NULL || set->natives == NULL) {
        thread_set_free(jni, set);
        return JVMTI_ERROR_OUT_OF_MEMORY;
    }
    for (jint i = 0; i < set->all_count; i++) {
        thread_facts *facts = &set->facts[set->count];
        if (thread_facts_get(jni, set->all[i], facts) != JVMTI_ERROR_NONE) {
            continue; /* ended since GetAllThreads */
        }
        if (!thread_set_wants(req, facts->id)) {
            thread_facts_free(facts);
            continue;
        }
        set->threads[set->count] = set->all[i];
        set->subjects[set->count] = (lock_subject) { .thread = set->all[i], .id = facts->id };
        set->count++;
    }
    return JVMTI_ERROR_NONE;
}

int thread_set_take(JNIEnv *jni, thread_set *set, jint max_depth, int want_owned) {
    int usage_calls_left = LOCKS_MONITOR_USAGE_CALLS;
    return thread_set_take_range(jni, set, 0, set->count, max_depth, want_owned, &usage_calls_left);
}

int thread_set_take_range(JNIEnv *jni, thread_set *set, size_t start, size_t end, jint max_depth, int want_owned,
                          int *usage_calls_left) {
    int status = thread_moments_take(jni, set->subjects + start, end - start, max_depth, want_owned, usage_calls_left,
                                     set->moments + start);
    for (size_t i = start; i < end; i++) {
        set->facts[i].state = set->moments[i].state;
        if (set->facts[i].state == 0 /* it ended before its moment was taken */
                && (*the_agent.jvmti)->GetThreadState(the_agent.jvmti, set->threads[i], &set->facts[i].state) != JVMTI_ERROR_NONE) {
            set->facts[i].state = JVMTI_THREAD_STATE_TERMINATED;
        }
    }
    return status;
}

static int64_t monotonic_nanos(void) {
    struct timespec ts;
    return clock_gettime(CLOCK_MONOTONIC, &ts) == 0 ? (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec : -1;
}

void thread_set_find_nids(JNIEnv *jni, thread_set *set) {
    set->cpu_read_start_nanos = monotonic_nanos();
    size_t room = set->count > 0 ? set->count : 1;
    jlong *ids = malloc(room * sizeof *ids);
    if (ids == NULL) {
        set->cpu_read_end_nanos = monotonic_nanos();
        return; /* every nid stays 0, unknown; no CPU time read */
    }
    for (size_t i = 0; i < set->count; i++) {
        ids[i] = set->facts[i].id;
    }
    int from_hotspot = hotspot_threads_read(jni, set->threads, ids, set->count, set->natives) == 0;
    if (!from_hotspot) {
        const char **names = malloc(room * sizeof *names);
        for (size_t i = 0; names != NULL && i < set->count; i++) {
            names[i] = set->facts[i].name;
        }
        if (names != NULL) { /* else every nid stays 0, unknown */
            native_ids_from_names(names, set->count, set->natives);
        }
        free(names);
    }
    native_ids_keep_own(set->natives, set->count);
    if (from_hotspot) {
        hotspot_threads_confirm(ids, set->natives, set->count);
    }
    pid_t *nids = malloc(room * sizeof *nids);
    task_stat *tasks = malloc(room * sizeof *tasks);
    unsigned char *read = malloc(room);
    if (nids != NULL && tasks != NULL && read != NULL) { /* else no task facts */
        for (size_t i = 0; i < set->count; i++) {
            nids[i] = set->natives[i].nid;
        }
        task_stat_read_threads(ids, nids, set->count, tasks, read);
        for (size_t i = 0; i < set->count; i++) {
            set->natives[i].has_task = read[i];
            set->natives[i].task = tasks[i];
        }
    }
    for (size_t i = 0; i < set->count; i++) {
        if (set->natives[i].has_cpu) {
            set->facts[i].cpu_nanos = set->natives[i].cpu_nanos;
        } else {
            thread_facts_read_cpu(set->threads[i], &set->facts[i]);
        }
        if (set->with_usage && set->natives[i].nid > 0) {
            set->natives[i].has_cpu_apart = task_stat_read_cpu(set->natives[i].nid, &set->natives[i].cpu_apart) == 0;
        }
    }
    if (set->with_usage) {
        (void)thread_allocation_read(jni, ids, set->count, set->allocated_bytes); /* -1 each where not counted */
    }
    set->cpu_read_end_nanos = monotonic_nanos();
    free(ids);
    free(nids);
    free(tasks);
    free(read);
}

void thread_set_cpu_read_done(thread_set *set) {
    set->cpu_read_end_nanos = monotonic_nanos();
}

void thread_set_write_cpu_read(json_writer *w, const thread_set *set) {
    json_begin_object_field(w, "cpuRead");
    json_field_int(w, "startNanos", set->cpu_read_start_nanos);
    json_field_int(w, "endNanos", set->cpu_read_end_nanos);
    json_end_object(w);
}

void thread_set_write_usage(json_writer *w, const thread_set *set) {
    if (!set->with_usage) {
        return;
    }
    json_begin_array_field(w, "usage");
    for (size_t i = 0; i < set->count; i++) {
        const native_thread *native = &set->natives[i];
        json_begin_object(w);
        json_field_int(w, "id", set->facts[i].id);
        if (native->has_cpu_apart) {
            json_field_int(w, "userNanos", native->cpu_apart.user_nanos);
            json_field_int(w, "systemNanos", native->cpu_apart.system_nanos);
        }
        if (set->allocated_bytes[i] >= 0) {
            json_field_int(w, "allocatedBytes", set->allocated_bytes[i]);
        }
        json_end_object(w);
    }
    json_end_array(w);
}

void thread_set_free(JNIEnv *jni, thread_set *set) {
    for (size_t i = 0; i < set->count; i++) {
        thread_facts_free(&set->facts[i]);
        if (set->subjects != NULL) {
            free(set->subjects[i].methods);
        }
    }
    if (set->moments != NULL) {
        thread_moments_free(set->moments, set->count);
    }
    for (jint i = 0; i < set->all_count; i++) {
        (*jni)->DeleteLocalRef(jni, set->all[i]);
    }
    (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)set->all);
    free(set->threads);
    free(set->facts);
    free(set->subjects);
    free(set->moments);
    free(set->natives);
    free(set->allocated_bytes);
    memset(set, 0, sizeof *set);
}
