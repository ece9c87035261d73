#include "exception_counts.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "jni_util.h"

/* Set while this thread is inside the probe: a Throwable its JNI calls create is not counted. */
static __thread int inside_probe;

int exception_counts_init(exception_counts *t, JNIEnv *jni, jrawMonitorID lock) {
    memset(t, 0, sizeof *t);
    t->lock = lock;
    t->agent_jni = jni;
    jclass throwable = (*jni)->FindClass(jni, "java/lang/Throwable");
    t->detail_message = jni_failed(jni, throwable) ? NULL : (*jni)->GetFieldID(jni, throwable, "detailMessage", "Ljava/lang/String;");
    if (throwable != NULL) {
        (*jni)->DeleteLocalRef(jni, throwable);
    }
    if (jni_failed(jni, t->detail_message)) {
        return -1;
    }
    jclass virtual_thread = (*jni)->FindClass(jni, "java/lang/VirtualThread");
    if (jni_cleared_exception(jni) || virtual_thread == NULL) {
        t->virtual_thread_run = NULL; /* before JDK 21 */
    } else {
        t->virtual_thread_run = (*jni)->GetMethodID(jni, virtual_thread, "run", "(Ljava/lang/Runnable;)V");
        if (jni_cleared_exception(jni)) {
            t->virtual_thread_run = NULL;
        }
        (*jni)->DeleteLocalRef(jni, virtual_thread);
    }
    t->classes = calloc(EXCEPTION_MAX_CLASSES, sizeof *t->classes);
    if (t->classes == NULL || stack_table_init(&t->stacks, EXCEPTION_STACK_SLOTS) != 0
            || stack_table_init(&t->catches, EXCEPTION_CATCH_SLOTS) != 0) {
        exception_counts_free(t, jni);
        return -1;
    }
    return 0;
}

jvmtiError exception_counts_track_throws(exception_counts *t, const char **what) {
    jvmtiCapabilities tagging;
    memset(&tagging, 0, sizeof tagging);
    tagging.can_tag_objects = 1;
    *what = "GetEnv(JVMTI)";
    if ((*the_agent.vm)->GetEnv(the_agent.vm, (void **)&t->tags, JVMTI_VERSION_1_2) != JNI_OK) {
        t->tags = NULL;
        return JVMTI_ERROR_INTERNAL;
    }
    *what = "AddCapabilities(can_tag_objects)";
    jvmtiError err = (*t->tags)->AddCapabilities(t->tags, &tagging);
    if (err != JVMTI_ERROR_NONE) {
        (void)(*t->tags)->DisposeEnvironment(t->tags);
        t->tags = NULL;
        return err;
    }
    t->throw_events = 1;
    return JVMTI_ERROR_NONE;
}

void exception_counts_free(exception_counts *t, JNIEnv *jni) {
    if (t->tags != NULL) {
        (void)(*t->tags)->DisposeEnvironment(t->tags); /* its tags with it */
    }
    for (int i = 0; t->classes != NULL && i < t->class_count; i++) {
        if (jni != NULL) {
            (*jni)->DeleteGlobalRef(jni, t->classes[i].klass);
        }
    }
    free(t->classes);
    stack_table_free(&t->stacks);
    stack_table_free(&t->catches);
    memset(t, 0, sizeof *t);
}

/* The index of klass, added if new; -1 when the table is full. Under t->lock. */
static int class_index(exception_counts *t, JNIEnv *jni, jclass klass) {
    for (int i = 0; i < t->class_count; i++) {
        if ((*jni)->IsSameObject(jni, klass, t->classes[i].klass)) {
            return i;
        }
    }
    if (t->class_count == EXCEPTION_MAX_CLASSES) {
        return -1;
    }
    jclass kept = (*jni)->NewGlobalRef(jni, klass);
    if (kept == NULL) {
        jni_cleared_exception(jni);
        return -1;
    }
    exception_class *c = &t->classes[t->class_count];
    memset(c, 0, sizeof *c);
    c->klass = kept;
    c->second = -1;
    return t->class_count++;
}

static int64_t monotonic_second(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (int64_t)now.tv_sec;
}

/* The message the Throwable's constructor was given (its detailMessage field: a getMessage() a
 * subclass overrides is never called), cut at EXCEPTION_MESSAGE_CHARS characters, into out;
 * 0 when it has none. */
static int read_message(exception_counts *t, JNIEnv *jni, jobject throwable, char out[EXCEPTION_MESSAGE_CHARS * 3 + 1]) {
    jstring message = (jstring)(*jni)->GetObjectField(jni, throwable, t->detail_message);
    if (message == NULL) {
        return 0;
    }
    jsize length = (*jni)->GetStringLength(jni, message);
    (*jni)->GetStringUTFRegion(jni, message, 0, length < EXCEPTION_MESSAGE_CHARS ? length : EXCEPTION_MESSAGE_CHARS, out);
    (*jni)->DeleteLocalRef(jni, message);
    return !jni_cleared_exception(jni);
}

static void keep_message(exception_class *c, int has_message, const char *message) {
    if (!has_message) {
        c->null_messages = 1;
        return;
    }
    for (int i = 0; i < c->message_count; i++) {
        if (strcmp(c->messages[i], message) == 0) {
            return;
        }
    }
    if (c->message_count < EXCEPTION_MESSAGES) {
        strcpy(c->messages[c->message_count], message);
        __atomic_store_n(&c->message_count, c->message_count + 1, __ATOMIC_RELAXED);
    }
}

void exception_counts_record(exception_counts *t, JNIEnv *jni, jobject throwable) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (inside_probe || jni == t->agent_jni) {
        return;
    }
    inside_probe = 1;
    jclass klass = (*jni)->GetObjectClass(jni, throwable);
    int index = -1;
    int take = 0;
    if (klass != NULL && (*jvmti)->RawMonitorEnter(jvmti, t->lock) == JVMTI_ERROR_NONE) {
        index = class_index(t, jni, klass);
        if (index < 0) {
            t->unlisted++;
        } else {
            exception_class *c = &t->classes[index];
            int64_t second = monotonic_second();
            c->count++;
            if (second != c->second) {
                c->second = second;
                c->taken_this_second = 0;
            }
            take = c->taken_this_second < EXCEPTION_STACKS_PER_SECOND;
            c->taken_this_second += take;
        }
        (*jvmti)->RawMonitorExit(jvmti, t->lock);
    }
    if (take) {
        jvmtiFrameInfo frames[STACK_MAX_FRAMES];
        jint depth = 0;
        char message[EXCEPTION_MESSAGE_CHARS * 3 + 1];
        int sample_message = __atomic_load_n(&t->classes[index].message_count, __ATOMIC_RELAXED) < EXCEPTION_MESSAGES;
        int has_message = sample_message && read_message(t, jni, throwable, message);
        /* depth 1: the probe's own native frame left out */
        if ((*jvmti)->GetStackTrace(jvmti, NULL, 1, STACK_MAX_FRAMES, frames, &depth) != JVMTI_ERROR_NONE) {
            depth = 0;
        }
        if ((*jvmti)->RawMonitorEnter(jvmti, t->lock) == JVMTI_ERROR_NONE) {
            exception_class *c = &t->classes[index];
            c->sampled++;
            stack_entry *e = stack_table_find_or_add(&t->stacks, index, -1, frames, depth);
            if (e == NULL) {
                t->dropped_stacks++;
            } else {
                e->count++;
            }
            if (sample_message) {
                keep_message(c, has_message, message);
            }
            (*jvmti)->RawMonitorExit(jvmti, t->lock);
        }
    }
    if (klass != NULL) {
        (*jni)->DeleteLocalRef(jni, klass);
    }
    inside_probe = 0;
}

/* How an exception object thrown since the events went on was counted, kept in its tag (never 0):
 * its class (-1: past the bound, counted in unlisted_events), its state, and the catches rows it
 * counts in (-1: none, counted in dropped_catches): the catching method's when caught, and its
 * first throw's uncaught row, made at that throw. */
typedef enum { NOT_THROWN = 0, UNWINDING = 1, CAUGHT = 2, UNCAUGHT = 3 } thrown_state;

typedef struct {
    int class_index;
    thrown_state state;
    int caught_slot;
    int uncaught_slot;
} thrown_object;

#define SLOT_BITS 12
#define SLOT_MASK ((1 << SLOT_BITS) - 1)
_Static_assert(EXCEPTION_CATCH_SLOTS < SLOT_MASK, "a catches slot + 1 fits its tag field");

static jlong tag_of(const thrown_object *o) {
    return (jlong)o->state | (jlong)(o->caught_slot + 1) << 2 | (jlong)(o->uncaught_slot + 1) << (2 + SLOT_BITS)
            | (jlong)(o->class_index + 1) << (2 + 2 * SLOT_BITS);
}

static thrown_object object_of(jlong tag) {
    thrown_object o;
    o.state = (thrown_state)(tag & 3);
    o.caught_slot = (int)((tag >> 2) & SLOT_MASK) - 1;
    o.uncaught_slot = (int)((tag >> (2 + SLOT_BITS)) & SLOT_MASK) - 1;
    o.class_index = (int)(tag >> (2 + 2 * SLOT_BITS)) - 1;
    return o;
}

static int slot_of(exception_counts *t, const stack_entry *e) {
    return e == NULL ? -1 : (int)(e - t->catches.slots);
}

static void add(uint64_t *count, int delta) {
    *count += (uint64_t)(int64_t)delta;
}

/* Adds delta (1 or -1) to what o's state counts: the class's caught or uncaught, and its row. */
static void count_state(exception_counts *t, const thrown_object *o, int delta) {
    if (o->state != CAUGHT && o->state != UNCAUGHT) {
        return;
    }
    exception_class *c = &t->classes[o->class_index];
    int slot = o->state == CAUGHT ? o->caught_slot : o->uncaught_slot;
    add(o->state == CAUGHT ? &c->caught : &c->uncaught, delta);
    add(slot < 0 ? &t->dropped_catches : &t->catches.slots[slot].count, delta);
}

/* The object's counts moved from before to after, once its tag says after. Under the lock. */
static void recount(exception_counts *t, jobject exception, const thrown_object *before, const thrown_object *after) {
    if ((*t->tags)->SetTag(t->tags, exception, tag_of(after)) != JVMTI_ERROR_NONE) {
        return;
    }
    if (after->class_index < 0) {
        t->unlisted_events += before->state == NOT_THROWN;
        return;
    }
    t->classes[after->class_index].thrown += before->state == NOT_THROWN;
    if (before->state != NOT_THROWN) {
        count_state(t, before, -1);
    }
    count_state(t, after, 1);
}

/* A first throw: the class, and the uncaught row of the throwing method. Under the lock. */
static thrown_object first_throw(exception_counts *t, JNIEnv *jni, jobject exception, jmethodID method, jlocation location) {
    thrown_object o = { -1, NOT_THROWN, -1, -1 };
    jclass klass = (*jni)->GetObjectClass(jni, exception);
    if (klass != NULL) {
        o.class_index = class_index(t, jni, klass);
        (*jni)->DeleteLocalRef(jni, klass);
    }
    if (o.class_index >= 0) {
        jvmtiFrameInfo frame = { method, location };
        o.uncaught_slot = slot_of(t, stack_table_find_or_add(&t->catches, o.class_index, 0, &frame, 1));
    }
    return o;
}

static void end_event(exception_counts *t) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    (*jvmti)->RawMonitorExit(jvmti, t->lock);
    inside_probe = 0;
}

/* Takes the lock and reads exception's tag (0: not thrown since the events went on); 0, or -1 when
 * the event is not to be counted (the agent's own, the probe's, a tag that cannot be read). */
static int begin_event(exception_counts *t, JNIEnv *jni, jobject exception, jlong *tag) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (inside_probe || jni == t->agent_jni || exception == NULL || t->tags == NULL
            || (*jvmti)->RawMonitorEnter(jvmti, t->lock) != JVMTI_ERROR_NONE) {
        return -1;
    }
    inside_probe = 1;
    if ((*t->tags)->GetTag(t->tags, exception, tag) != JVMTI_ERROR_NONE) {
        end_event(t);
        return -1;
    }
    return 0;
}

void exception_counts_thrown(exception_counts *t, JNIEnv *jni, jobject exception, jmethodID method, jlocation location,
                             jmethodID catch_method) {
    jlong tag = 0;
    if (begin_event(t, jni, exception, &tag) != 0) {
        return;
    }
    thrown_object before = tag == 0 ? first_throw(t, jni, exception, method, location) : object_of(tag);
    thrown_object after = before;
    int uncaught = catch_method == NULL || (t->virtual_thread_run != NULL && catch_method == t->virtual_thread_run);
    after.state = uncaught ? UNCAUGHT : UNWINDING;
    after.caught_slot = -1;
    recount(t, exception, &before, &after);
    end_event(t);
}

void exception_counts_caught(exception_counts *t, JNIEnv *jni, jobject exception, jmethodID method, jlocation location) {
    jlong tag = 0;
    if ((t->virtual_thread_run != NULL && method == t->virtual_thread_run) || begin_event(t, jni, exception, &tag) != 0) {
        return;
    }
    thrown_object before = object_of(tag);
    if (tag != 0 && before.class_index >= 0) {
        thrown_object after = before;
        jvmtiFrameInfo frame = { method, location };
        after.state = CAUGHT;
        after.caught_slot = slot_of(t, stack_table_find_or_add(&t->catches, before.class_index, 1, &frame, 1));
        recount(t, exception, &before, &after);
    }
    end_event(t);
}

/* An entry's "frames", resolved through methods (none without them). */
static void write_frames(json_writer *w, method_table *methods, const stack_entry *e) {
    json_key(w, "frames");
    if (methods != NULL) {
        method_table_write_frames(methods, w, e->frames, e->depth);
    } else {
        json_begin_array(w);
        json_end_array(w);
    }
}

void exception_counts_write(exception_counts *t, json_writer *w, method_table *methods) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    json_field_int(w, "stacksPerSecond", EXCEPTION_STACKS_PER_SECOND);
    json_field_int(w, "unlisted", (int64_t)t->unlisted);
    json_field_int(w, "droppedStacks", (int64_t)t->dropped_stacks);
    json_begin_array_field(w, "exceptions");
    for (int i = 0; i < t->class_count; i++) {
        exception_class *c = &t->classes[i];
        char *signature = NULL;
        if ((*jvmti)->GetClassSignature(jvmti, c->klass, &signature, NULL) != JVMTI_ERROR_NONE) {
            signature = NULL;
        }
        json_begin_object(w);
        json_field_mutf8(w, "name", signature);
        json_field_int(w, "count", (int64_t)c->count);
        json_field_int(w, "sampled", (int64_t)c->sampled);
        json_field_bool(w, "nullMessages", c->null_messages);
        if (t->throw_events) {
            json_field_int(w, "thrown", (int64_t)c->thrown);
            json_field_int(w, "caught", (int64_t)c->caught);
            json_field_int(w, "uncaught", (int64_t)c->uncaught);
        }
        json_begin_array_field(w, "messages");
        for (int m = 0; m < c->message_count; m++) {
            json_mutf8(w, c->messages[m]);
        }
        json_end_array(w);
        json_end_object(w);
        agent_deallocate(signature);
    }
    json_end_array(w);
    json_field_bool(w, "throwEvents", t->throw_events);
    if (t->throw_events) {
        json_field_int(w, "droppedCatches", (int64_t)t->dropped_catches);
        json_field_int(w, "unlistedEvents", (int64_t)t->unlisted_events);
        json_begin_array_field(w, "catches");
        for (size_t i = 0; t->catches.slots != NULL && i < t->catches.capacity; i++) {
            const stack_entry *e = &t->catches.slots[i];
            if (e->hash == 0 || e->count == 0) { /* a first throw's uncaught row, unused */
                continue;
            }
            json_begin_object(w);
            json_field_int(w, "exception", e->key);
            json_field_bool(w, "caught", e->aux);
            json_field_int(w, "count", (int64_t)e->count);
            write_frames(w, methods, e);
            json_end_object(w);
        }
        json_end_array(w);
    }
    json_begin_array_field(w, "stacks");
    for (size_t i = 0; t->stacks.slots != NULL && i < t->stacks.capacity; i++) {
        const stack_entry *e = &t->stacks.slots[i];
        if (e->hash == 0) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "exception", e->key);
        json_field_int(w, "count", (int64_t)e->count);
        write_frames(w, methods, e);
        json_end_object(w);
    }
    json_end_array(w);
}
