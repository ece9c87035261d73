/* Not part of the agent: the CLI loads this same library (System.load) for these JNI functions,
 * to check an agent's socket before it sends a byte, which Java cannot do by itself. The socket
 * directory is opened without following a link at its last component and described from the
 * descriptor (a path checked first and used later could be swapped in between); the CLI connects
 * through /proc/self/fd/<fd>/, the directory it checked. SO_PEERCRED names the process that
 * listens: Java 17 gives a UNIX channel's peer user (jdk.net's SO_PEERCRED) but not its pid. */
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* {fd, uid, mode} of parent/name, opened as a path without following name if it is a link;
 * {-errno, 0, 0} when it cannot be opened. The caller closes fd with closeDirectory. */
JNIEXPORT jlongArray JNICALL Java_dev_jvmticli_attach_AgentSocket_openDirectory(JNIEnv *jni, jclass type,
                                                                              jstring parent, jstring name) {
    (void)type;
    jlong described[3] = { -EINVAL, 0, 0 };
    const char *parent_path = (*jni)->GetStringUTFChars(jni, parent, NULL);
    if (parent_path == NULL) {
        return NULL; /* OutOfMemoryError pending */
    }
    const char *entry = (*jni)->GetStringUTFChars(jni, name, NULL);
    if (entry == NULL) {
        (*jni)->ReleaseStringUTFChars(jni, parent, parent_path);
        return NULL;
    }
    int parent_fd = open(parent_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd < 0) {
        described[0] = -errno;
    } else {
        int fd = openat(parent_fd, entry, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0) {
            described[0] = -errno;
        } else if (fstat(fd, &st) != 0) {
            described[0] = -errno;
            close(fd);
        } else {
            described[0] = fd;
            described[1] = st.st_uid;
            described[2] = st.st_mode;
        }
        close(parent_fd);
    }
    (*jni)->ReleaseStringUTFChars(jni, name, entry);
    (*jni)->ReleaseStringUTFChars(jni, parent, parent_path);
    jlongArray result = (*jni)->NewLongArray(jni, 3);
    if (result == NULL) {
        if (described[0] >= 0) {
            close((int)described[0]);
        }
        return NULL;
    }
    (*jni)->SetLongArrayRegion(jni, result, 0, 3, described);
    return result;
}

JNIEXPORT void JNICALL Java_dev_jvmticli_attach_AgentSocket_closeDirectory(JNIEnv *jni, jclass type, jint fd) {
    (void)jni;
    (void)type;
    close(fd);
}

/* {pid, uid} of the process listening at the other end of channel (a connected
 * java.nio.channels.SocketChannel); {-errno, 0} when the kernel does not say. The descriptor is
 * asked of the channel through sun.nio.ch.SelChImpl.getFDVal(), which every JDK's SocketChannel
 * implements (JNI is not held to the module boundary). */
JNIEXPORT jlongArray JNICALL Java_dev_jvmticli_attach_AgentSocket_peer(JNIEnv *jni, jclass type, jobject channel) {
    (void)type;
    jlong peer[2] = { -EINVAL, 0 };
    jclass channel_type = (*jni)->GetObjectClass(jni, channel);
    if (channel_type == NULL) {
        return NULL;
    }
    jmethodID fd_of = (*jni)->GetMethodID(jni, channel_type, "getFDVal", "()I");
    (*jni)->DeleteLocalRef(jni, channel_type);
    if (fd_of == NULL) {
        return NULL; /* NoSuchMethodError pending */
    }
    jint fd = (*jni)->CallIntMethod(jni, channel, fd_of);
    if ((*jni)->ExceptionCheck(jni)) {
        return NULL;
    }
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        peer[0] = -errno;
    } else if (len == sizeof cred) {
        peer[0] = cred.pid;
        peer[1] = cred.uid;
    }
    jlongArray result = (*jni)->NewLongArray(jni, 2);
    if (result == NULL) {
        return NULL;
    }
    (*jni)->SetLongArrayRegion(jni, result, 0, 2, peer);
    return result;
}
