/* mhd_uv.c: a libmicrohttpd daemon driven from the host's libuv loop, and parked connections. */
#include "mhd_uv.h"

#include <stdlib.h>

#include "log.h"

struct host_mhd {
    struct MHD_Daemon *d;
    const char *name;    /* for logs: "http", "dashboard" */
    uv_poll_t poll;      /* libmicrohttpd's epoll fd: readable when it has work */
    uv_timer_t timer;    /* MHD_get_timeout: timeouts, and work it knows is pending */
    host_mhd_park_t *parked; /* suspended connections (they must be resumed before the stop) */
    unsigned open_handles;   /* closed by host_mhd_stop: m is freed after the last */
    bool running;            /* inside MHD_run */
    bool kicked;             /* a kick came inside MHD_run: run again at once after it */
};

struct host_mhd_park {
    host_mhd_t *m;
    struct MHD_Connection *c;
    int fd;
    bool parked, hung_up;
    bool timer_on, poll_on;
    unsigned open_handles;
    bool freed; /* host_mhd_park_free was called: freed once the handles are closed */
    uv_timer_t timer;
    uv_poll_t poll;
    host_mhd_park_t *prev, *next; /* in m->parked while parked */
};

/* ---------------------------------------------------------------- the daemon */

static void run(host_mhd_t *m);

static void on_timer(uv_timer_t *t)
{
    run(t->data);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    run(p->data);
}

/* How much earlier than libmicrohttpd's next timeout the timer may stay armed: a timer that
   fires early only runs libmicrohttpd once more (nothing is due, it is armed again). */
#define ARM_EARLY_MS 1000u

/* Arms the timer to fire in ms. A keep-alive connection's timeout moves with every request
   (its last activity plus the idle timeout): a timer already due no later than that, and at
   most ARM_EARLY_MS earlier, is left as it is instead of being moved in the timer heap after
   every request. It never fires later than asked. */
static void arm(host_mhd_t *m, uint64_t ms)
{
    if (uv_is_active((uv_handle_t *)&m->timer)) {
        uint64_t due = uv_timer_get_due_in(&m->timer);
        if (due <= ms && ms - due <= ARM_EARLY_MS) return;
    }
    uv_timer_start(&m->timer, on_timer, ms, 0);
}

/* Runs what is due, then arms the timer for libmicrohttpd's next timeout (0 when it knows of
   work it has not done yet: data already read, a resumed connection). */
static void run(host_mhd_t *m)
{
    if (!m->d) return;
    m->running = true;
    MHD_run(m->d);
    m->running = false;
    MHD_UNSIGNED_LONG_LONG ms = 0;
    if (m->kicked) {
        m->kicked = false;
        uv_timer_start(&m->timer, on_timer, 0, 0);
    } else if (MHD_get_timeout(m->d, &ms) == MHD_YES)
        arm(m, ms > 60000u ? 60000u : (uint64_t)ms);
    else
        uv_timer_stop(&m->timer);
}

host_mhd_t *host_mhd_start(uv_loop_t *loop, struct MHD_Daemon *d, const char *name)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
    if (!info || info->epoll_fd < 0) {
        host_log(HOST_LOG_ERROR, "%s: libmicrohttpd has no epoll fd", name);
        return NULL;
    }
    host_mhd_t *m = calloc(1, sizeof *m);
    if (!m) abort();
    m->d = d;
    m->name = name;
    uv_poll_init(loop, &m->poll, info->epoll_fd);
    uv_timer_init(loop, &m->timer);
    m->poll.data = m->timer.data = m;
    m->open_handles = 2;
    uv_poll_start(&m->poll, UV_READABLE, on_poll);
    uv_timer_start(&m->timer, on_timer, 0, 0);
    return m;
}

void host_mhd_kick(host_mhd_t *m)
{
    if (m->running)
        m->kicked = true;
    else if (m->d)
        uv_timer_start(&m->timer, on_timer, 0, 0);
}

static void on_daemon_handle_closed(uv_handle_t *handle)
{
    host_mhd_t *m = handle->data;
    if (--m->open_handles == 0) free(m);
}

void host_mhd_stop(host_mhd_t *m)
{
    while (m->parked) host_mhd_unpark(m->parked); /* MHD_stop_daemon wants none suspended */
    uv_poll_stop(&m->poll); /* before libmicrohttpd closes the fd it watches */
    uv_timer_stop(&m->timer);
    struct MHD_Daemon *d = m->d;
    m->d = NULL;
    MHD_stop_daemon(d);
    uv_close((uv_handle_t *)&m->poll, on_daemon_handle_closed);
    uv_close((uv_handle_t *)&m->timer, on_daemon_handle_closed);
}

/* ---------------------------------------------------------------- parked connections */

host_mhd_park_t *host_mhd_park_new(host_mhd_t *m, struct MHD_Connection *c, int fd)
{
    host_mhd_park_t *p = calloc(1, sizeof *p);
    if (!p) abort();
    p->m = m;
    p->c = c;
    p->fd = fd;
    uv_loop_t *loop = m->timer.loop;
    uv_timer_init(loop, &p->timer);
    p->timer.data = p;
    p->open_handles = 1;
    if (fd >= 0 && uv_poll_init(loop, &p->poll, fd) == 0) {
        p->poll.data = p;
        p->open_handles++;
    } else {
        p->fd = -1;
    }
    return p;
}

static void on_park_timer(uv_timer_t *t)
{
    host_mhd_unpark(t->data);
}

/* The client closed its end (or the socket failed): the stream has nobody to send to. */
static void on_park_poll(uv_poll_t *handle, int status, int events)
{
    host_mhd_park_t *p = handle->data;
    if (status < 0 || (events & UV_DISCONNECT)) p->hung_up = true;
    host_mhd_unpark(p);
}

void host_mhd_park(host_mhd_park_t *p, uint64_t timeout_ms)
{
    if (p->parked || !p->m->d) return;
    MHD_suspend_connection(p->c);
    p->parked = true;
    p->next = p->m->parked;
    p->prev = NULL;
    if (p->next) p->next->prev = p;
    p->m->parked = p;
    if (timeout_ms > 0) {
        uv_timer_start(&p->timer, on_park_timer, timeout_ms, 0);
        p->timer_on = true;
    }
    if (p->fd >= 0 && !p->hung_up) {
        uv_poll_start(&p->poll, UV_DISCONNECT, on_park_poll);
        p->poll_on = true;
    }
}

void host_mhd_unpark(host_mhd_park_t *p)
{
    if (!p->parked) return;
    p->parked = false;
    if (p->prev)
        p->prev->next = p->next;
    else
        p->m->parked = p->next;
    if (p->next) p->next->prev = p->prev;
    p->prev = p->next = NULL;
    if (p->timer_on) uv_timer_stop(&p->timer);
    if (p->poll_on) uv_poll_stop(&p->poll);
    p->timer_on = p->poll_on = false;
    MHD_resume_connection(p->c);
    host_mhd_kick(p->m);
}

bool host_mhd_park_hung_up(const host_mhd_park_t *p)
{
    return p->hung_up;
}

static void on_park_closed(uv_handle_t *handle)
{
    host_mhd_park_t *p = handle->data;
    if (--p->open_handles == 0) free(p);
}

void host_mhd_park_free(host_mhd_park_t *p)
{
    if (!p) return;
    if (p->parked) { /* not expected: a parked connection's response is not destroyed */
        host_log(HOST_LOG_WARN, "%s: a parked connection's stream was freed", p->m->name);
        host_mhd_unpark(p);
    }
    p->freed = true;
    uv_close((uv_handle_t *)&p->timer, on_park_closed); /* before libmicrohttpd closes fd */
    if (p->fd >= 0) uv_close((uv_handle_t *)&p->poll, on_park_closed);
}
