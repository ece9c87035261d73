/* Native thread ids (the `nid` of a thread dump). JVMTI does not expose them, so they are
 * matched from /proc/self/task: HotSpot names each OS thread after its Java thread (the first 15
 * bytes of the modified UTF-8 JVMTI gives); threads with the same name are told apart by the CPU
 * time the kernel counted. A match is remembered for the thread's life (see native_ids.c). One
 * caller at a time: the agent thread. */
#ifndef JVMTICLI_NATIVE_IDS_H
#define JVMTICLI_NATIVE_IDS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    int64_t java_id;     /* java.lang.Thread's tid */
    const char *name;    /* modified UTF-8, as JVMTI gives it */
    int64_t cpu_nanos;   /* -1 when unknown */
    pid_t nid;           /* set by native_ids_resolve: 0 when no task matches */
} nid_query;

/* Sets each query's nid. complete: the queries are every live thread, so remembered matches of
 * threads not among them (ended) are forgotten. */
void native_ids_resolve(nid_query *queries, size_t count, int complete);

/* Forgets every remembered match (agent shutdown). */
void native_ids_forget(void);

#endif
