/* Not part of the agent: the CLI loads this same library (System.load) for this one JNI function,
 * to learn whether the reader of its standard output went away while it waits without writing.
 * Java has no other way to ask: a pipe whose reader exited shows only as EPIPE on the next write,
 * and a write of no bytes succeeds. poll(2) reports POLLERR on a pipe's write end without readers
 * and POLLHUP on a socket whose peer closed it or a terminal that hung up. */
#include <jni.h>
#include <poll.h>

JNIEXPORT jboolean JNICALL Java_dev_jvmticli_cli_StandardOutput_readerGone(JNIEnv *jni, jclass type) {
    (void)jni;
    (void)type;
    struct pollfd out = { .fd = 1, .events = 0, .revents = 0 };
    return poll(&out, 1, 0) == 1 && (out.revents & (POLLERR | POLLHUP)) != 0 ? JNI_TRUE : JNI_FALSE;
}
