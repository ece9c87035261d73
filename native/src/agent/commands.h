/* Every command the agent answers but hello and detach (dispatch.c); one file per family
 * implements them. Only the dispatch table includes this file. */
#ifndef JVMTICLI_COMMANDS_H
#define JVMTICLI_COMMANDS_H

#include "answer.h"

/* threads.c */
void cmd_threads(command_ctx *ctx);
void cmd_cpu(command_ctx *ctx);

/* vm_info.c */
void cmd_vm(command_ctx *ctx);

/* stacks.c */
void cmd_stacks(command_ctx *ctx);

/* vthreads.c */
void cmd_vthreads(command_ctx *ctx);
void cmd_blockers(command_ctx *ctx);

/* alloc.c */
void cmd_alloc_start(command_ctx *ctx);
void cmd_alloc_stop(command_ctx *ctx);

/* contention.c */
void cmd_contention_start(command_ctx *ctx);
void cmd_contention_stop(command_ctx *ctx);

/* jit.c */
void cmd_jit(command_ctx *ctx);

/* heap.c */
void cmd_heap(command_ctx *ctx);

/* heap_dump.c */
void cmd_heap_dump(command_ctx *ctx);

/* heap_paths.c */
void cmd_heap_paths(command_ctx *ctx);

/* class_loaders.c */
void cmd_class_loaders(command_ctx *ctx);

/* memory.c */
void cmd_memory(command_ctx *ctx);

/* native_memory.c */
void cmd_nativemem_start(command_ctx *ctx);
void cmd_nativemem_stop(command_ctx *ctx);

/* trace.c */
void cmd_trace_start(command_ctx *ctx);
void cmd_trace_bytes(command_ctx *ctx);
void cmd_trace_install(command_ctx *ctx);
void cmd_trace_stop(command_ctx *ctx);
void cmd_exceptions_start(command_ctx *ctx);

/* parks.c */
void cmd_parks_start(command_ctx *ctx);
void cmd_parks_bytes(command_ctx *ctx);
void cmd_parks_install(command_ctx *ctx);
void cmd_parks_stop(command_ctx *ctx);

/* profile.c */
void cmd_profile_start(command_ctx *ctx);
void cmd_profile_stop(command_ctx *ctx);
/* Around each request that is not the profile's own, on the agent thread: while a profile runs,
 * the VM thread's samples meanwhile are kept apart as the tool's own work's (profile.c). */
void profile_own_work_begin(JNIEnv *jni);
void profile_own_work_end(JNIEnv *jni);

/* pauses.c */
void cmd_pauses_start(command_ctx *ctx);
void cmd_pauses_stop(command_ctx *ctx);

#endif
