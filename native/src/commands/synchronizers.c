#include "synchronizers.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "answer.h"
#include "jni_util.h"
#include "thread_facts.h"

/* The tag put on each synchronizer during one collection; no other code of the agent tags objects. */
#define SYNCHRONIZER_TAG ((jlong)0x61627300)

typedef struct {
    size_t found;
    size_t tagged;
} walk_count;

/* At the safepoint: only counts and tags, nothing else is allowed there. */
static jvmtiIterationControl JNICALL tag_synchronizer(jlong class_tag, jlong size, jlong *tag_ptr, void *user_data) {
    (void)class_tag;
    (void)size;
    walk_count *count = user_data;
    count->found++;
    if (count->tagged < SYNCHRONIZERS_MAX) {
        *tag_ptr = SYNCHRONIZER_TAG;
        count->tagged++;
    }
    return JVMTI_ITERATION_CONTINUE;
}

static jvmtiIterationControl JNICALL untag_synchronizer(jlong class_tag, jlong size, jlong *tag_ptr, void *user_data) {
    (void)class_tag;
    (void)size;
    (void)user_data;
    *tag_ptr = 0;
    return JVMTI_ITERATION_CONTINUE;
}

static long micros_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000000L + (now.tv_nsec - start->tv_nsec) / 1000;
}

/* Reads each tagged synchronizer's owner and clears its tag. */
static int read_owners(JNIEnv *jni, jclass synchronizer, jobject *objects, jint count, synchronizer_owners *owners) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jfieldID owner_field = (*jni)->GetFieldID(jni, synchronizer, "exclusiveOwnerThread", "Ljava/lang/Thread;");
    int status = jni_failed(jni, owner_field) ? -1 : 0;
    owners->owned = calloc(count > 0 ? (size_t)count : 1, sizeof *owners->owned);
    if (owners->owned == NULL) {
        status = -1;
    }
    for (jint i = 0; i < count; i++) {
        (*jvmti)->SetTag(jvmti, objects[i], 0);
        jobject owner = status == 0 ? (*jni)->GetObjectField(jni, objects[i], owner_field) : NULL;
        if (owner != NULL) {
            owned_synchronizer *s = &owners->owned[owners->count++];
            s->owner_id = thread_java_id(jni, owner);
            lock_facts_describe_object(jni, objects[i], &s->lock);
            (*jni)->DeleteLocalRef(jni, owner);
        }
        (*jni)->DeleteLocalRef(jni, objects[i]);
    }
    return status;
}

int synchronizers_collect(JNIEnv *jni, synchronizer_owners *owners) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    memset(owners, 0, sizeof *owners);
    if (!the_agent.held.can_tag_objects) {
        return JVMTI_ERROR_MUST_POSSESS_CAPABILITY;
    }
    jclass synchronizer = (*jni)->FindClass(jni, "java/util/concurrent/locks/AbstractOwnableSynchronizer");
    if (jni_failed(jni, synchronizer)) {
        return JVMTI_ERROR_INVALID_CLASS;
    }
    walk_count count = { 0, 0 };
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    jvmtiError err = (*jvmti)->IterateOverInstancesOfClass(jvmti, synchronizer, JVMTI_HEAP_OBJECT_EITHER, tag_synchronizer, &count);
    owners->walk_micros = micros_since(&start);
    owners->instances = count.found;
    owners->complete = count.found == count.tagged;

    jlong tag = SYNCHRONIZER_TAG;
    jint tagged = 0;
    jobject *objects = NULL;
    /* room for every reference GetObjectsWithTags makes, so that -Xcheck:jni sees none beyond capacity */
    if ((*jni)->PushLocalFrame(jni, (jint)count.tagged + 16) != 0) {
        jni_cleared_exception(jni);
        err = err != JVMTI_ERROR_NONE ? err : JVMTI_ERROR_OUT_OF_MEMORY;
        (*jvmti)->IterateOverInstancesOfClass(jvmti, synchronizer, JVMTI_HEAP_OBJECT_TAGGED, untag_synchronizer, NULL);
    } else {
        /* run even when the walk failed part way: the tags it set are cleared here */
        jvmtiError got = (*jvmti)->GetObjectsWithTags(jvmti, 1, &tag, &tagged, &objects, NULL);
        if (got == JVMTI_ERROR_NONE) {
            if (read_owners(jni, synchronizer, objects, tagged, owners) != 0 && err == JVMTI_ERROR_NONE) {
                err = JVMTI_ERROR_INTERNAL;
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *)objects);
        } else if (err == JVMTI_ERROR_NONE) {
            err = got;
        }
        (*jni)->PopLocalFrame(jni, NULL);
    }
    (*jni)->DeleteLocalRef(jni, synchronizer);
    if (err != JVMTI_ERROR_NONE) {
        synchronizers_free(owners);
    }
    return err;
}

void synchronizers_free(synchronizer_owners *owners) {
    for (size_t i = 0; i < owners->count; i++) {
        free(owners->owned[i].lock.class_name);
    }
    free(owners->owned);
    memset(owners, 0, sizeof *owners);
}

void cmd_synchronizers(command_ctx *ctx) {
    synchronizer_owners owners;
    int err = synchronizers_collect(ctx->jni, &owners);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "the heap walk for ownable synchronizers", err);
        return;
    }
    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    json_field_bool(w, "complete", owners.complete);
    json_field_int(w, "instances", (int64_t)owners.instances);
    json_field_int(w, "walkMicros", owners.walk_micros);
    json_begin_array_field(w, "owned");
    for (size_t i = 0; i < owners.count; i++) {
        json_begin_object(w);
        json_field_int(w, "ownerId", owners.owned[i].owner_id);
        json_field_mutf8(w, "class", owners.owned[i].lock.class_name);
        json_field_int(w, "hash", (uint32_t)owners.owned[i].lock.hash);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
    synchronizers_free(&owners);
}
