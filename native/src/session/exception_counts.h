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
 * and ExceptionCatch events by class, once for each exception object however often it is thrown
 * (a finally block, a catch that throws it on, a synchronized block's exit all throw it again):
 * thrown at its first throw, and caught (at the catching method) or uncaught (at that first throw)
 * by where it last went, a later throw of the same object undoing its earlier catch. The objects
 * are told apart by tags of a JVMTI environment of the session's own (tags), disposed of with it,
 * so that no tag outlives the session. The same rules hold for their callbacks. */
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
    jvmtiEnv *tags;         /* with throw_events: each thrown object's tag says how it was counted */
} exception_counts;

/* 0, or -1 (no memory, or Throwable.detailMessage not found). */
int exception_counts_init(exception_counts *t, JNIEnv *jni, jrawMonitorID lock);
void exception_counts_free(exception_counts *t, JNIEnv *jni);

/* Has the events counted as well, from now on: 0, or the error (with *what naming the call) when
 * the session's tagging environment cannot be had. */
jvmtiError exception_counts_track_throws(exception_counts *t, const char **what);

/* Counts one Throwable at the end of its Throwable constructor. */
void exception_counts_record(exception_counts *t, JNIEnv *jni, jobject throwable);

/* The JVMTI Exception event (start-up mode, when the agent holds can_generate_exception_events):
 * a throw of exception from method at location; catch_method NULL when no Java frame of the thread
 * catches it. Its first throw is counted as thrown; a later one undoes how it was counted since.
 * Uncaught, at its first throw's method, when nothing catches it, or only VirtualThread.run does:
 * it catches what ends a virtual thread, for its uncaught exception handler, as the JVM itself does
 * for a platform thread (and its catch is not counted as one). */
void exception_counts_thrown(exception_counts *t, JNIEnv *jni, jobject exception, jmethodID method, jlocation location,
                             jmethodID catch_method);

/* The JVMTI ExceptionCatch event: exception caught in method, its handler at location; counted as
 * caught there until the object is thrown again. One not thrown since the events went on is not
 * counted. */
void exception_counts_caught(exception_counts *t, JNIEnv *jni, jobject exception, jmethodID method, jlocation location);

/* Writes "exceptions": [{name, count, sampled, messages, nullMessages}], "unlisted",
 * "droppedStacks", "stacksPerSecond" and "stacks": [{exception, count, frames}] (exception: an
 * index into exceptions; count: stacks taken; innermost frame first,
 * the probe's own left out), into the object w is in; frames index methods. */
void exception_counts_write(exception_counts *t, json_writer *w, method_table *methods);
/* With throw_events set, each exception also has thrown, caught and uncaught, and "catches":
 * [{exception, caught, count, frames}] (one frame: the catching method, or the first throw's method
 * of an uncaught exception), "droppedCatches"; "throwEvents" says which. */

#endif
