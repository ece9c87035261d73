#include "virtual_hold.h"

#include "agent.h"
#include "jni_util.h"

static struct {
    int tried;
    jclass virtual_thread; /* NULL where no virtual thread is held: before JDK 25 */
} hold;

/* Only where HotSpot has jdk.internal.vm.ThreadSnapshot (JDK 25+), where the crashes were seen. On
 * JDK 21 JVMTI reads a suspended virtual thread as RUNNABLE besides what it does
 * (JvmtiEnvBase::get_vthread_state), so a held thread's state would be false there. */
static jclass held_class(JNIEnv *jni) {
    jclass snapshot = (*jni)->FindClass(jni, "jdk/internal/vm/ThreadSnapshot");
    if (jni_failed(jni, snapshot)) {
        return NULL;
    }
    (*jni)->DeleteLocalRef(jni, snapshot);
    return jni_global_class(jni, "java/lang/VirtualThread");
}

static void hold_release(JNIEnv *jni) {
    if (hold.virtual_thread != NULL) {
        (*jni)->DeleteGlobalRef(jni, hold.virtual_thread);
    }
    hold.virtual_thread = NULL;
    hold.tried = 0;
}
AGENT_RELEASE(hold_release)

virtual_hold virtual_hold_take(JNIEnv *jni, jthread thread) {
    if (!hold.tried) {
        hold.tried = 1;
        hold.virtual_thread = held_class(jni);
    }
    if (hold.virtual_thread == NULL || !(*jni)->IsInstanceOf(jni, thread, hold.virtual_thread)) {
        return HOLD_NOT_NEEDED;
    }
    if (!the_agent.held.can_suspend) {
        return HOLD_FAILED;
    }
    switch ((*the_agent.jvmti)->SuspendThread(the_agent.jvmti, thread)) {
    case JVMTI_ERROR_NONE:
        return HOLD_SUSPENDED;
    case JVMTI_ERROR_THREAD_SUSPENDED:
        return HOLD_NOT_NEEDED;
    case JVMTI_ERROR_THREAD_NOT_ALIVE:
        return HOLD_ENDED;
    default:
        return HOLD_FAILED;
    }
}

void virtual_hold_release(jthread thread, virtual_hold hold_taken) {
    if (hold_taken == HOLD_SUSPENDED) {
        /* fails only when someone else resumed it meanwhile: nothing left to undo */
        (void)(*the_agent.jvmti)->ResumeThread(the_agent.jvmti, thread);
    }
}
