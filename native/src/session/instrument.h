/* The one instrumentation engine: classes whose bytecode a session replaces, and put back.
 *
 * The agent never rewrites a class file itself: it reads each class's bytes through a
 * RetransformClasses whose ClassFileLoadHook records what the JVM hands it (the class as loaded,
 * or as HotSpot reconstitutes it), gives them to the client, takes the client's rewritten bytes,
 * and installs them with one RetransformClasses whose hook hands them out. HotSpot verifies and
 * loads every new version before it replaces any class, so a refusal changes nothing. Restoring is
 * a RetransformClasses whose hook changes nothing: each class goes back to the bytes it was loaded
 * with. A last read then checks, by SHA-256, that the bytes are the ones the class had when the new
 * ones went in. Those can differ from the first read's: HotSpot keeps no stack maps for a class it
 * does not verify (the boot loader's, by default) when it parses one, so once a JDK class that came
 * from the CDS archive (which keeps them) has been retransformed, even by the first read, it reads
 * without them (JDK 17).
 *
 * The hook is on only around these calls and only for the agent's own thread, so no class loaded
 * meanwhile by the application passes through it. Only the agent thread calls this module. */
#ifndef JVMTICLI_INSTRUMENT_H
#define JVMTICLI_INSTRUMENT_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "answer.h"
#include "json.h"
#include "session.h"

/* The largest class a client may send back. */
#define INSTRUMENT_MAX_CLASS_BYTES (8 << 20)

typedef struct {
    jclass klass;               /* global ref */
    char *signature;            /* malloc'd, "Lp/C;" */
    uint8_t *original;          /* malloc'd, as read at the start */
    jint original_len;
    char original_sha256[65];
    uint8_t *replacement;       /* malloc'd, the client's bytes */
    jint replacement_len;
    jint replacement_filled;
    char replaced_sha256[65];   /* what the JVM held when the new bytes went in; "" until then */
    char restored_sha256[65];   /* as read after the restore; "" until then */
} instrumented_class;

/* Sets the ClassFileLoadHook callback (for events_install). */
void instrument_callbacks(jvmtiEventCallbacks *callbacks);

/* Sets can_retransform_classes. */
void instrument_wants(jvmtiCapabilities *c);

/* What the session_engine of every session that instruments classes has the same: its capability
 * and the class file hook. */
#define INSTRUMENT_ENGINE \
    .capability = "can_retransform_classes", .wants = instrument_wants, .callbacks = instrument_callbacks

/* Whether another session holds one of classes (from its read to its free): if so answers ctx
 * `busy`, naming the class and the holder, and returns 1. Two sessions' probes cannot stand in one
 * class: a read and a restore each hand back the class as it was loaded, without the other's. */
int instrument_refuse_taken(command_ctx *ctx, const instrumented_class *classes, int count);

/* Reads the bytes of each class into original (and its hash), and hands them back unchanged so that
 * HotSpot keeps them as the class file the restore returns to; holder (a static name: "trace",
 * "contention's park probes") holds the classes from here until instrument_free. JVMTI_ERROR_NONE,
 * or the error of the call that failed (what names it). */
jvmtiError instrument_read(instrumented_class *classes, int count, const char *holder, const char **what);

/* Installs every class's replacement in one RetransformClasses: all, or (on an error) none. */
jvmtiError instrument_install(instrumented_class *classes, int count, const char **what);

/* After instrument_install failed with err: ends the session of engine e (which puts nothing back:
 * nothing went in) and answers `refused`, "the JVM refused the instrumented classes (what: its
 * error's name); every class is left as it was". */
void instrument_refused(command_ctx *ctx, const session_engine *e, jvmtiError err, const char *what);

/* Puts every class back as it was loaded, then reads it again into restored_sha256. */
jvmtiError instrument_restore(instrumented_class *classes, int count, const char **what);

/* The "classes" field of a start's answer: each class's name, the SHA-256 and base64 of its bytes. */
void instrument_write_originals(json_writer *w, const instrumented_class *classes, int count);

/* The "classes" field of a report: each class's name and SHA-256 as read at the start, as replaced
 * and as restored. */
void instrument_write_outcome(json_writer *w, const instrumented_class *classes, int count);

/* Whether ctx's client owns the running session run and has not installed its classes yet; else
 * answers ctx: `not_owner` with no_session, or `bad_request`. */
int instrument_before_install(command_ctx *ctx, const session_state *run, int installed, const char *no_session);

/* The `<session>.bytes` request, after instrument_before_install: one piece of a class's new bytes,
 * in order: class (its index among classes), size (all its bytes), offset (the bytes sent before
 * this piece), data (base64). Answers the bytes received so far, or what is wrong. */
void instrument_receive_bytes(command_ctx *ctx, instrumented_class *classes, int count);

/* Frees what the classes hold (global refs, bytes) and ends their holder's hold; jni NULL leaks the
 * global refs. */
void instrument_free(JNIEnv *jni, instrumented_class *classes, int count);

#endif
