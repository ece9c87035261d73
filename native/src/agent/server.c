#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "answer.h"
#include "dispatch.h"
#include "socket_dir.h"
#include "stale_sockets.h"

#define SOCKET_PARENT "/tmp"
#define MAX_CLIENTS 64
#define BACKLOG 128
#define POLL_MILLIS 1000
#define IDLE_LIMIT_SECONDS 10
/* With every slot taken, a client silent this long gives its slot to a new one (the CLI sends a
 * keep-alive more often while it waits between requests, see AgentClient.pause). */
#define EVICT_AFTER_SECONDS 5
/* With every slot taken, a new client waits this long for one (any client idle when it came has
 * become evictable by then), then is told "connections_busy" and hung up on. */
#define BUSY_AFTER_SECONDS (EVICT_AFTER_SECONDS + 1)
#define WAITING_MAX 16
#define BUSY_SEND_LIMIT_MILLIS 100
#define ANSWER_SEND_LIMIT_MILLIS 10000
#define SOCKET_CHECK_SECONDS 2
#define ACCEPT_PAUSE_SECONDS 1

typedef struct {
    int fd;
    int id;
    char *buf;        /* REQUEST_MAX_LINE + 1 bytes while connected */
    size_t len;
    time_t last_activity; /* connected, or last sent a whole line: bytes of a partial line do not count */
    int answered;     /* has sent at least one whole request */
    int64_t send_deadline; /* monotonic ms by which the current answer must be sent */
} client;

static struct {
    int listen_fd;
    char dir[96];
    char path[108];
    ino_t inode;
    int check_now;        /* set by another thread: look at the socket file at once */
    time_t accept_paused_until;
    struct {
        int fd;
        time_t since;
    } waiting[WAITING_MAX]; /* accepted, in the order they came, for the next free slot */
    int waiting_count;
    client clients[MAX_CLIENTS];
    int next_client_id;
} server = { .listen_fd = -1 };

/* One answer at a time, on the agent thread. */
static json_writer writer;

/* A detach asked the agent to stop: return after the request that asked. */
static int stopping(void) {
    return agent_current() == AGENT_STOPPING;
}

static time_t now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

static int64_t now_millis(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Binds under a temporary name, restricts it to 0600, then renames it into place, so the
 * final name never points at a socket with wider permissions. The fchmod before bind makes
 * Linux create the file as 0600 already (unix_bind takes the socket inode's mode), so not even
 * the temporary name is ever wider, whatever the JVM's umask. */
static int create_socket(void) {
    struct sockaddr_un addr;
    struct stat st;
    char tmp[sizeof addr.sun_path];
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (snprintf(tmp, sizeof tmp, "%s/%d.tmp", server.dir, (int)getpid()) >= (int)sizeof tmp) {
        close(fd);
        return -1;
    }
    unlink(tmp);
    if (fchmod(fd, 0600) != 0) {
        close(fd);
        return -1;
    }
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, tmp, strlen(tmp) + 1);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0
            || chmod(tmp, 0600) != 0
            || listen(fd, BACKLOG) != 0
            || rename(tmp, server.path) != 0
            || lstat(server.path, &st) != 0) {
        unlink(tmp);
        close(fd);
        return -1;
    }
    server.inode = st.st_ino;
    return fd;
}

int server_open(void) {
    uid_t euid = geteuid();
    if (snprintf(server.dir, sizeof server.dir, SOCKET_PARENT "/.jvmti-cli-%u", (unsigned)euid) >= (int)sizeof server.dir
            || snprintf(server.path, sizeof server.path, "%s/%d.sock", server.dir, (int)getpid()) >= (int)sizeof server.path) {
        return AGENT_ERR_SOCKET_DIR;
    }
    if (socket_dir_ensure(SOCKET_PARENT, strrchr(server.dir, '/') + 1) != 0) {
        return AGENT_ERR_SOCKET_DIR;
    }
    server.listen_fd = create_socket();
    if (server.listen_fd < 0) {
        return AGENT_ERR_SOCKET;
    }
    stale_sockets_remove(server.dir, strrchr(server.path, '/') + 1);
    server.check_now = 0;
    server.accept_paused_until = 0;
    server.waiting_count = 0;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        server.clients[i].fd = -1;
    }
    return AGENT_OK;
}

/* A temp cleaner may delete the socket file: put a fresh one in its place. */
static void check_socket_file(void) {
    struct stat st;
    if (lstat(server.path, &st) == 0 && st.st_ino == server.inode) {
        return;
    }
    if (socket_dir_ensure(SOCKET_PARENT, strrchr(server.dir, '/') + 1) != 0) {
        return;
    }
    int fd = create_socket();
    if (fd >= 0) {
        close(server.listen_fd);
        server.listen_fd = fd;
    }
}

static int peer_allowed(int fd) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) {
        return 0;
    }
    return cred.uid == 0 || cred.uid == geteuid();
}

static void drop_client(client *c) {
    dispatch_client_gone(c->id);
    close(c->fd);
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
    c->len = 0;
}

void server_check_socket_soon(void) {
    __atomic_store_n(&server.check_now, 1, __ATOMIC_SEQ_CST);
}

static client *free_slot(void) {
    for (int i = 0; i < MAX_CLIENTS; i++) {
        if (server.clients[i].fd < 0) {
            return &server.clients[i];
        }
    }
    return NULL;
}

/* The client silent longest, if silent for EVICT_AFTER_SECONDS: an idle answered one, or one that
 * sent nothing or only part of a line; never one whose session runs (a sampling window is silent). */
static client *evictable_client(void) {
    time_t now = now_seconds();
    client *oldest = NULL;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        client *c = &server.clients[i];
        if (c->fd >= 0 && now - c->last_activity >= EVICT_AFTER_SECONDS && !dispatch_client_has_work(c->id)
                && (oldest == NULL || c->last_activity < oldest->last_activity)) {
            oldest = c;
        }
    }
    return oldest;
}

static int send_all(void *ctx, const char *data, size_t len);

static void refuse_busy(int fd) {
    client refused = { .fd = fd, .send_deadline = now_millis() + BUSY_SEND_LIMIT_MILLIS };
    json_init(&writer, send_all, &refused);
    answer_error(&writer, 0, "connections_busy", "all connections busy");
    (void)json_flush(&writer); /* hung up on whether or not it got the answer */
    close(fd);
}

/* A slot for a new client: a free one, or that of the client silent longest; NULL if none. */
static client *slot_for_newcomer(void) {
    client *c = free_slot();
    if (c == NULL && (c = evictable_client()) != NULL) {
        drop_client(c);
    }
    return c;
}

static void take_client(client *c, int fd) {
    c->buf = malloc(REQUEST_MAX_LINE + 1);
    if (c->buf == NULL) {
        close(fd);
        return;
    }
    c->fd = fd;
    c->id = ++server.next_client_id;
    c->len = 0;
    c->answered = 0;
    c->last_activity = now_seconds();
}

/* Gives the waiting clients, first come first, the slots there are; tells those that waited too long. */
static void admit_waiting(void) {
    int kept = 0;
    time_t now = now_seconds();
    for (int i = 0; i < server.waiting_count; i++) {
        client *c = slot_for_newcomer();
        if (c != NULL) {
            take_client(c, server.waiting[i].fd);
        } else if (now - server.waiting[i].since >= BUSY_AFTER_SECONDS) {
            refuse_busy(server.waiting[i].fd);
        } else {
            server.waiting[kept++] = server.waiting[i];
        }
    }
    server.waiting_count = kept;
}

static void accept_client(void) {
    int fd = accept4(server.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
        /* Out of descriptors or memory: the pending connection stays readable, so polling the
         * listener again at once would spin; leave it alone for a moment instead. */
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            server.accept_paused_until = now_seconds() + ACCEPT_PAUSE_SECONDS;
        }
        return;
    }
    /* Anyone the JVM itself would not let in (another uid, not root) is closed unanswered. */
    if (!peer_allowed(fd)) {
        close(fd);
        return;
    }
    client *c = server.waiting_count == 0 ? slot_for_newcomer() : NULL;
    if (c != NULL) {
        take_client(c, fd);
    } else {
        server.waiting[server.waiting_count].fd = fd;
        server.waiting[server.waiting_count].since = now_seconds();
        server.waiting_count++;
    }
}

/* Sends to a client whose socket is non-blocking; a client that does not read its answer gets
 * ANSWER_SEND_LIMIT_MILLIS in all for it, so it can hold up the other clients only that long. */
static int send_all(void *ctx, const char *data, size_t len) {
    client *c = ctx;
    while (len > 0) {
        ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            data += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int64_t left = c->send_deadline - now_millis();
            struct pollfd out = { c->fd, POLLOUT, 0 };
            if (left <= 0 || (poll(&out, 1, (int)(left < POLL_MILLIS ? left : POLL_MILLIS)) < 0 && errno != EINTR)) {
                return -1;
            }
            continue;
        }
        return -1;
    }
    return 0;
}

static void begin_answer(client *c) {
    c->send_deadline = now_millis() + ANSWER_SEND_LIMIT_MILLIS;
    json_init(&writer, send_all, c);
}

/* Answers every whole line in the client's buffer; returns -1 when the client must go. */
static int serve_lines(JNIEnv *jni, client *c) {
    size_t start = 0;
    for (size_t i = 0; i < c->len; i++) {
        if (c->buf[i] != '\n') {
            continue;
        }
        begin_answer(c);
        dispatch_line(jni, c->id, c->fd, c->buf + start, i - start, &writer);
        if (json_flush(&writer) != 0) {
            return -1;
        }
        c->answered = 1;
        c->last_activity = now_seconds();
        start = i + 1;
        if (stopping()) {
            break;
        }
    }
    memmove(c->buf, c->buf + start, c->len - start);
    c->len -= start;
    return 0;
}

static void read_client(JNIEnv *jni, client *c) {
    ssize_t n = recv(c->fd, c->buf + c->len, REQUEST_MAX_LINE + 1 - c->len, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        drop_client(c);
        return;
    }
    c->len += (size_t)n;
    if (serve_lines(jni, c) != 0) {
        drop_client(c);
        return;
    }
    if (c->len > REQUEST_MAX_LINE) {
        begin_answer(c);
        answer_error(&writer, 0, "bad_request", "request longer than 65536 bytes");
        (void)json_flush(&writer); /* the client is dropped whether or not it got the answer */
        drop_client(c);
    }
}

/* A client that has sent half a request, or nothing at all, may not hold a slot forever, however
 * slowly it sends its bytes; one that has been answered may sit idle (an interactive shell does)
 * until a new client needs its slot. */
static void drop_stalled_clients(void) {
    time_t now = now_seconds();
    for (int i = 0; i < MAX_CLIENTS; i++) {
        client *c = &server.clients[i];
        if (c->fd >= 0 && (c->len > 0 || !c->answered) && now - c->last_activity > IDLE_LIMIT_SECONDS) {
            drop_client(c);
        }
    }
}

void server_run(JNIEnv *jni) {
    struct pollfd fds[MAX_CLIENTS + 1];
    client *owners[MAX_CLIENTS + 1];
    time_t last_check = now_seconds();
    while (!stopping()) {
        nfds_t count = 0;
        /* With every slot taken and the waiting room full, new clients wait in the listen backlog. */
        fds[count].fd = server.waiting_count < WAITING_MAX && now_seconds() >= server.accept_paused_until ? server.listen_fd : -1;
        fds[count].events = POLLIN;
        owners[count++] = NULL;
        for (int i = 0; i < MAX_CLIENTS; i++) {
            if (server.clients[i].fd >= 0) {
                fds[count].fd = server.clients[i].fd;
                fds[count].events = POLLIN;
                owners[count++] = &server.clients[i];
            }
        }
        int ready = poll(fds, count, POLL_MILLIS);
        if (ready < 0 && errno != EINTR) {
            break;
        }
        for (nfds_t i = 1; ready > 0 && i < count && !stopping(); i++) {
            if (fds[i].revents != 0 && owners[i]->fd >= 0) {
                read_client(jni, owners[i]);
            }
        }
        if (ready > 0 && (fds[0].revents & POLLIN) && !stopping()) {
            accept_client();
        }
        drop_stalled_clients();
        admit_waiting();
        if (__atomic_exchange_n(&server.check_now, 0, __ATOMIC_SEQ_CST)
                || now_seconds() - last_check >= SOCKET_CHECK_SECONDS) {
            check_socket_file();
            last_check = now_seconds();
        }
    }
}

void server_unlink(void) {
    struct stat st;
    if (server.listen_fd >= 0 && lstat(server.path, &st) == 0 && st.st_ino == server.inode) {
        unlink(server.path);
    }
}

void server_close(void) {
    for (int i = 0; i < server.waiting_count; i++) {
        close(server.waiting[i].fd);
    }
    server.waiting_count = 0;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        if (server.clients[i].fd >= 0) {
            drop_client(&server.clients[i]);
        }
    }
    server_unlink();
    if (server.listen_fd >= 0) {
        close(server.listen_fd);
        server.listen_fd = -1;
    }
}
