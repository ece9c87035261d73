/* The `threads` command: every live platform thread with its facts. */
#include <string.h>

#include "agent.h"
#include "commands.h"
#include "mutf8.h"
#include "native_ids.h"
#include "thread_facts.h"

void cmd_threads(command_ctx *ctx) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    JNIEnv *jni = ctx->jni;
    jint count = 0;
    jthread *threads = NULL;
    task_table tasks;
    jvmtiError err = (*jvmti)->GetAllThreads(jvmti, &count, &threads);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetAllThreads", err);
        return;
    }
    /* On failure the table is empty: every nid is then 0, "not matched", and the rest stands. */
    (void)task_table_load(&tasks);
    command_result(ctx);
    json_begin_object(ctx->out);
    json_key(ctx->out, "threads");
    json_begin_array(ctx->out);
    for (jint i = 0; i < count; i++) {
        thread_facts facts;
        if (thread_facts_get(jni, threads[i], &facts) == JVMTI_ERROR_NONE) {
            char utf8_name[64];
            mutf8_to_utf8(facts.name, utf8_name, sizeof utf8_name);
            json_begin_object(ctx->out);
            thread_facts_write(ctx->out, &facts, task_table_match(&tasks, utf8_name, facts.cpu_nanos));
            json_end_object(ctx->out);
            thread_facts_free(&facts);
        }
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    json_end_array(ctx->out);
    json_end_object(ctx->out);
    task_table_free(&tasks);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
}
