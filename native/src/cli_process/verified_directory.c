/* Not part of the agent: the CLI loads this same library (System.load) for these JNI functions of
 * dev.jvmticli.files.VerifiedDirectory, the file operations Java's NIO lacks for creating files
 * where another user may write (a target's /tmp reached through /proc/<pid>/root, its working
 * directory): mkdirat, an open that neither follows a link nor blocks on a FIFO, and doing the
 * writes with the target user's file-system credentials.
 *
 * Every name is one path component, resolved relative to a directory descriptor the caller has
 * opened and checked; no call follows a link in it. The credentials are switched for the calling
 * thread only and restored before returning: setfsuid/setfsgid act per thread, and setgroups is
 * made as a raw system call because glibc's wrapper changes every thread of the process. */
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define SAVED_GROUPS_MAX 256
#define COPY_CHUNK 65536
#define AS_SELF (-1)

typedef struct {
    int switched;
    uid_t fsuid;
    gid_t fsgid;
    int group_count;
    gid_t groups[SAVED_GROUPS_MAX];
} credentials;

static void throw_io(JNIEnv *jni, const char *what, const char *name, int error) {
    char message[512];
    snprintf(message, sizeof message, "%s %s: %s", what, name == NULL ? "" : name, strerror(error));
    jclass type = (*jni)->FindClass(jni, "java/io/IOException");
    if (type != NULL) {
        (*jni)->ThrowNew(jni, type, message);
    }
}

/* Takes uid and gid as the thread's file-system identity, with no supplementary group; AS_SELF
 * keeps the process's own. Returns 0, or an errno value with nothing changed. */
static int act_as(jint uid, jint gid, credentials *saved) {
    saved->switched = 0;
    if (uid == AS_SELF) {
        return 0;
    }
    saved->group_count = getgroups(SAVED_GROUPS_MAX, saved->groups);
    if (saved->group_count < 0) {
        return errno;
    }
    if (syscall(SYS_setgroups, 0, NULL) != 0) {
        return errno;
    }
    saved->fsgid = (gid_t)setfsgid((gid_t)gid);
    saved->fsuid = (uid_t)setfsuid((uid_t)uid);
    saved->switched = 1;
    /* setfsuid reports no error: it answers the previous id, and a failed change leaves it */
    if ((uid_t)setfsuid((uid_t)-1) != (uid_t)uid || (gid_t)setfsgid((gid_t)-1) != (gid_t)gid) {
        return EPERM;
    }
    return 0;
}

/* Gives the thread back what act_as took; a thread that cannot get it back must not go on. */
static void restore(JNIEnv *jni, const credentials *saved) {
    if (!saved->switched) {
        return;
    }
    setfsuid(saved->fsuid);
    setfsgid(saved->fsgid);
    if ((uid_t)setfsuid((uid_t)-1) != saved->fsuid || (gid_t)setfsgid((gid_t)-1) != saved->fsgid
            || syscall(SYS_setgroups, (size_t)saved->group_count, saved->groups) != 0) {
        (*jni)->FatalError(jni, "jvmti-cli: cannot restore this thread's file-system credentials");
    }
}

/* The name as modified UTF-8, or NULL with an exception pending; release with release_name. */
static const char *name_of(JNIEnv *jni, jstring name) {
    if (name == NULL) {
        return NULL;
    }
    return (*jni)->GetStringUTFChars(jni, name, NULL);
}

static void release_name(JNIEnv *jni, jstring name, const char *chars) {
    if (chars != NULL) {
        (*jni)->ReleaseStringUTFChars(jni, name, chars);
    }
}

static int begin(JNIEnv *jni, jint uid, jint gid, credentials *saved, const char *what, const char *name) {
    int error = act_as(uid, gid, saved);
    if (error != 0) {
        restore(jni, saved);
        throw_io(jni, what, name, error);
        return -1;
    }
    return 0;
}

JNIEXPORT jint JNICALL Java_dev_jvmticli_files_VerifiedDirectory_openDirectory(JNIEnv *jni, jclass type, jint dir, jstring name,
                                                                                jboolean follow) {
    (void)type;
    const char *chars = name_of(jni, name);
    if (chars == NULL) {
        return -1;
    }
    int flags = O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
    int fd = openat(dir, chars, flags);
    if (fd < 0) {
        throw_io(jni, "cannot open directory", chars, errno);
    }
    release_name(jni, name, chars);
    return fd;
}

JNIEXPORT void JNICALL Java_dev_jvmticli_files_VerifiedDirectory_closeDescriptor(JNIEnv *jni, jclass type, jint fd) {
    (void)jni;
    (void)type;
    close(fd); /* nothing to do about a failed close of a directory only read */
}

/* {device, inode, mode, uid, gid} of the directory itself (name NULL) or of an entry in it, not
 * following a link; NULL when there is no such entry. */
JNIEXPORT jlongArray JNICALL Java_dev_jvmticli_files_VerifiedDirectory_status(JNIEnv *jni, jclass type, jint dir, jstring name) {
    (void)type;
    struct stat st;
    int result;
    const char *chars = NULL;
    if (name == NULL) {
        result = fstat(dir, &st);
    } else {
        chars = name_of(jni, name);
        if (chars == NULL) {
            return NULL;
        }
        result = fstatat(dir, chars, &st, AT_SYMLINK_NOFOLLOW);
    }
    int error = errno;
    jlongArray answer = NULL;
    if (result != 0) {
        if (error != ENOENT) {
            throw_io(jni, "cannot stat", chars == NULL ? "directory" : chars, error);
        }
    } else {
        jlong fields[5] = { (jlong)st.st_dev, (jlong)st.st_ino, (jlong)st.st_mode, (jlong)st.st_uid, (jlong)st.st_gid };
        answer = (*jni)->NewLongArray(jni, 5);
        if (answer != NULL) {
            (*jni)->SetLongArrayRegion(jni, answer, 0, 5, fields);
        }
    }
    release_name(jni, name, chars);
    return answer;
}

/* Creates a directory; false when the name exists already (whatever it is). */
JNIEXPORT jboolean JNICALL Java_dev_jvmticli_files_VerifiedDirectory_makeDirectory(JNIEnv *jni, jclass type, jint dir, jstring name,
                                                                                     jint mode, jint uid, jint gid) {
    (void)type;
    const char *chars = name_of(jni, name);
    if (chars == NULL) {
        return JNI_FALSE;
    }
    credentials saved;
    jboolean made = JNI_FALSE;
    if (begin(jni, uid, gid, &saved, "cannot create directory", chars) == 0) {
        int result = mkdirat(dir, chars, (mode_t)mode);
        int error = errno;
        restore(jni, &saved);
        if (result == 0) {
            made = JNI_TRUE;
        } else if (error != EEXIST) {
            throw_io(jni, "cannot create directory", chars, error);
        }
    }
    release_name(jni, name, chars);
    return made;
}

/* Writes content in chunks from the Java array: no copy of a whole library on the C heap. */
static int write_content(JNIEnv *jni, int fd, jbyteArray content) {
    jbyte chunk[COPY_CHUNK];
    jsize length = (*jni)->GetArrayLength(jni, content);
    for (jsize at = 0; at < length;) {
        jsize count = length - at < COPY_CHUNK ? length - at : COPY_CHUNK;
        (*jni)->GetByteArrayRegion(jni, content, at, count, chunk);
        for (jsize done = 0; done < count;) {
            ssize_t written = write(fd, chunk + done, (size_t)(count - done));
            if (written < 0) {
                if (errno == EINTR) {
                    continue;
                }
                return errno;
            }
            done += (jsize)written;
        }
        at += count;
    }
    return 0;
}

/* Creates a new file (never an existing name, never through a link) with content and then the
 * given mode, set on the descriptor; false when the name exists already. A partly written file is
 * removed again. */
JNIEXPORT jboolean JNICALL Java_dev_jvmticli_files_VerifiedDirectory_createFile(JNIEnv *jni, jclass type, jint dir, jstring name,
                                                                                  jbyteArray content, jint mode, jint uid, jint gid) {
    (void)type;
    const char *chars = name_of(jni, name);
    if (chars == NULL) {
        return JNI_FALSE;
    }
    credentials saved;
    jboolean created = JNI_FALSE;
    if (begin(jni, uid, gid, &saved, "cannot create", chars) == 0) {
        int fd = openat(dir, chars, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
        int error = fd < 0 ? errno : 0;
        if (fd >= 0) {
            error = write_content(jni, fd, content);
            if (error == 0 && fchmod(fd, (mode_t)mode) != 0) {
                error = errno;
            }
            if (error == 0 && fsync(fd) != 0) {
                error = errno;
            }
            if (close(fd) != 0 && error == 0) {
                error = errno;
            }
            if (error != 0) {
                unlinkat(dir, chars, 0); /* best effort: the error below is what matters */
            }
        }
        restore(jni, &saved);
        if (fd >= 0 && error == 0) {
            created = JNI_TRUE;
        } else if (fd >= 0 || error != EEXIST) {
            throw_io(jni, "cannot create", chars, error);
        }
    }
    release_name(jni, name, chars);
    return created;
}

/* Sets the mode of the directory itself, on its descriptor. */
JNIEXPORT void JNICALL Java_dev_jvmticli_files_VerifiedDirectory_changeMode(JNIEnv *jni, jclass type, jint dir, jint mode, jint uid,
                                                                             jint gid) {
    (void)type;
    credentials saved;
    if (begin(jni, uid, gid, &saved, "cannot change the mode of", "directory") == 0) {
        int result = fchmod(dir, (mode_t)mode);
        int error = errno;
        restore(jni, &saved);
        if (result != 0) {
            throw_io(jni, "cannot change the mode of", "directory", error);
        }
    }
}

/* Renames an entry within the directory, replacing what the new name held. */
JNIEXPORT void JNICALL Java_dev_jvmticli_files_VerifiedDirectory_rename(JNIEnv *jni, jclass type, jint dir, jstring from, jstring to,
                                                                         jint uid, jint gid) {
    (void)type;
    const char *old_name = name_of(jni, from);
    if (old_name == NULL) {
        return;
    }
    const char *new_name = name_of(jni, to);
    if (new_name != NULL) {
        credentials saved;
        if (begin(jni, uid, gid, &saved, "cannot rename", old_name) == 0) {
            int result = renameat(dir, old_name, dir, new_name);
            int error = errno;
            restore(jni, &saved);
            if (result != 0) {
                throw_io(jni, "cannot rename", old_name, error);
            }
        }
        release_name(jni, to, new_name);
    }
    release_name(jni, from, old_name);
}

/* Removes an entry that is not a directory; false when there was none. */
JNIEXPORT jboolean JNICALL Java_dev_jvmticli_files_VerifiedDirectory_delete(JNIEnv *jni, jclass type, jint dir, jstring name, jint uid,
                                                                             jint gid) {
    (void)type;
    const char *chars = name_of(jni, name);
    if (chars == NULL) {
        return JNI_FALSE;
    }
    credentials saved;
    jboolean deleted = JNI_FALSE;
    if (begin(jni, uid, gid, &saved, "cannot remove", chars) == 0) {
        int result = unlinkat(dir, chars, 0);
        int error = errno;
        restore(jni, &saved);
        if (result == 0) {
            deleted = JNI_TRUE;
        } else if (error != ENOENT) {
            throw_io(jni, "cannot remove", chars, error);
        }
    }
    release_name(jni, name, chars);
    return deleted;
}

/* The content of a regular file, at most limit bytes: opened without following a link and
 * without blocking (a FIFO would), checked to be a regular file before a byte is read. NULL when
 * there is no such entry. */
JNIEXPORT jbyteArray JNICALL Java_dev_jvmticli_files_VerifiedDirectory_readRegularFile(JNIEnv *jni, jclass type, jint dir, jstring name,
                                                                                        jint limit) {
    (void)type;
    const char *chars = name_of(jni, name);
    if (chars == NULL) {
        return NULL;
    }
    jbyteArray answer = NULL;
    int fd = openat(dir, chars, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0) {
        if (errno != ENOENT) {
            throw_io(jni, "cannot open", chars, errno);
        }
    } else if (fstat(fd, &st) != 0) {
        throw_io(jni, "cannot stat", chars, errno);
    } else if (!S_ISREG(st.st_mode)) {
        throw_io(jni, "not a regular file:", chars, EINVAL);
    } else if (st.st_size > limit) {
        throw_io(jni, "larger than expected:", chars, EFBIG);
    } else {
        jbyte chunk[COPY_CHUNK];
        jsize size = (jsize)st.st_size;
        answer = (*jni)->NewByteArray(jni, size);
        for (jsize at = 0; answer != NULL && at < size;) {
            ssize_t got = read(fd, chunk, (size_t)(size - at < COPY_CHUNK ? size - at : COPY_CHUNK));
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got <= 0) {
                throw_io(jni, "cannot read", chars, got < 0 ? errno : EIO);
                answer = NULL;
                break;
            }
            (*jni)->SetByteArrayRegion(jni, answer, at, (jsize)got, chunk);
            at += (jsize)got;
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    release_name(jni, name, chars);
    return answer;
}
