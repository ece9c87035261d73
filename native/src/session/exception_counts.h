/* What the `exceptions` probe sees, one Throwable at a time: every Throwable's class counted
 * exactly, and, at most EXCEPTION_STACKS_PER_SECOND times a second for each class, its creating
 * thread's stack (grouped by class and stack) and the message its constructor was given (at most
 * EXCEPTION_MESSAGES distinct ones a class, each cut at EXCEPTION_MESSAGE_CHARS characters).
 *
 * The probe runs inside Throwable's constructors, on the application's threads: it calls no Java
 * code and creates no object (the class's global reference aside), and a Throwable created while it
 * runs (a JNI failure) is not counted, so it never calls itself. The agent's own thread is never
 * counted. Callers hold nothing: the table takes lock (their session's raw monitor) itself.
 *
 * In start-up mode with the exception-events option the same table also counts JVMTI's Exception
 * and ExceptionCatch events by class: thrown, caught (and the catching method) and uncaught (and the
 * throwing method), the same rules holding for their callbacks. */
#ifndef JVMTICLI_EXCEPTION_COUNTS_H
#define JVMTICLI_EXCEPTION_COUNTS_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "aggregate.h"
#include "json.h"
#include "method_table.h"

#define EXCEPTION_MAX_CLASSES 256
#define EXCEPTION_MESSAGES 3
#define EXCEPTION_MESSAGE_CHARS 200
#define EXCEPTION_STACKS_PER_SECOND 20
#define EXCEPTION_STACK_SLOTS 1024
#define EXCEPTION_CATCH_SLOTS 512

typedef struct {
    jclass klass;           /* global ref */
    uint64_t count;
    uint64_t sampled;       /* stacks taken */
    int64_t second;         /* of the monotonic clock, when the last stack was taken */
    int taken_this_second;
    int message_count;
    int null_messages;      /* a sampled one had no message */
    char messages[EXCEPTION_MESSAGES][EXCEPTION_MESSAGE_CHARS * 3 + 1]; /* modified UTF-8 */
    uint64_t thrown;        /* the JVMTI events' counts (start-up mode only) */
    uint64_t caught;
    uint64_t uncaught;
} exception_class;

typedef struct {
    jrawMonitorID lock;
    JNIEnv *agent_jni;      /* the agent thread's: its Throwables are the tool's own */
    jfieldID detail_message;
    exception_class *classes;
    int class_count;
    uint64_t unlisted;      /* Throwables of classes past EXCEPTION_MAX_CLASSES */
    uint64_t dropped_stacks; /* taken, but no slot left in stacks */
    stack_table stacks;     /* key: class index; count: stacks taken */
    int throw_events;       /* the Exception and ExceptionCatch events count as well */
    stack_table catches;    /* key: class index; aux: 1 caught (frame: the catching method), 0 uncaught (frame: the throwing one) */
    uint64_t dropped_catches; /* no slot left in catches */
    uint64_t unlisted_events; /* events about classes past EXCEPTION_MAX_CLASSES */
    jmethodID virtual_thread_run; /* java.lang.VirtualThread.run(Runnable) (JDK 21+), or NULL */
} exception_counts;

/* 0, or -1 (no memory, or Throwable.detailMessage not found). */
int exception_counts_init(exception_counts *t, JNIEnv *jni, jrawMonitorID lock);
void exception_counts_free(exception_counts *t, JNIEnv *jni);

/* Counts one Throwable at the end of its Throwable constructor. */
void exception_counts_record(exception_counts *t, JNIEnv *jni, jobject throwable);

/* The JVMTI Exception event (start-up mode, when the agent holds can_generate_exception_events):
 * a throw of exception from method at location; catch_method NULL when no Java frame of the thread
 * catches it. Counted as thrown, and as uncaught at the throwing method when nothing catches it, or
 * only VirtualThread.run does: it catches what ends a virtual thread, for its uncaught exception
 * handler, as the JVM itself does for a platform thread (and its catch is not counted as one). */
void exception_counts_thrown(exception_counts *t, JNIEnv *jni, jobject exception, jmethodID method, jlocation location,
                             jmethodID catch_method);

/* The JVMTI ExceptionCatch event: exception caught in method, its handler at location. */
void exception_counts_caught(exception_counts *t, JNIEnv *jni, jobject exception, jmethodID method, jlocation location);

/* Writes "exceptions": [{name, count, sampled, messages, nullMessages}], "unlisted",
 * "droppedStacks", "stacksPerSecond" and "stacks": [{exception, count, frames}] (exception: an
 * index into exceptions; count: stacks taken; innermost frame first,
 * the probe's own left out), into the object w is in; frames index methods. */
void exception_counts_write(exception_counts *t, json_writer *w, method_table *methods);
/* With throw_events set, each exception also has thrown, caught and uncaught, and "catches":
 * [{exception, caught, count, frames}] (one frame: the catching method, or the throwing one of an
 * uncaught exception), "droppedCatches"; "throwEvents" says which. */

#endif
