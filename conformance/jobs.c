/* jobs.c: --jobs N: forked workers, one result per line on a pipe, merged back in index order. */
#define _DEFAULT_SOURCE
#include "jobs.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- ordered merge */

void conf_merge_init(conf_merge_t *m, size_t total, conf_merge_emit_fn emit, void *ud)
{
    memset(m, 0, sizeof *m);
    m->slots = conf_xcalloc(total + 1, sizeof *m->slots);
    m->have = conf_xcalloc(total + 1, sizeof *m->have);
    m->total = total;
    m->emit = emit;
    m->ud = ud;
}

int conf_merge_put(conf_merge_t *m, size_t index, conf_result_t *r)
{
    if (index >= m->total || index < m->next || m->have[index]) {
        conf_result_free(r);
        return -1;
    }
    m->slots[index] = *r;
    m->have[index] = true;
    memset(r, 0, sizeof *r);
    while (m->next < m->total && m->have[m->next]) {
        m->have[m->next] = false;
        m->emit(m->ud, &m->slots[m->next], m->next);
        memset(&m->slots[m->next], 0, sizeof m->slots[m->next]);
        m->next++;
    }
    return 0;
}

void conf_merge_free(conf_merge_t *m)
{
    for (size_t i = 0; i < m->total; i++)
        if (m->have[i]) conf_result_free(&m->slots[i]);
    free(m->slots);
    free(m->have);
    memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- results as JSON */

static void set_text(json_t *o, const char *key, const char *s)
{
    if (s) json_object_set_new(o, key, conf_json_string_lossy(s));
}

json_t *conf_result_to_json(const conf_result_t *r)
{
    json_t *o = json_object();
    set_text(o, "name", r->name);
    json_object_set_new(o, "status", json_integer(r->status));
    set_text(o, "message", r->message);
    set_text(o, "expected", r->expected);
    set_text(o, "actual", r->actual);
    set_text(o, "transcript", r->transcript);
    json_object_set_new(o, "ms", json_real(r->ms));
    if (r->steps) json_object_set(o, "steps", r->steps);
    return o;
}

static char *get_text(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? conf_strdup(s) : NULL;
}

int conf_result_from_json(const json_t *j, conf_result_t *r)
{
    memset(r, 0, sizeof *r);
    json_t *status = json_object_get(j, "status");
    if (!json_is_object(j) || !json_is_integer(status) || json_integer_value(status) < CONF_PASS ||
        json_integer_value(status) > CONF_STALE)
        return -1;
    r->status = (conf_status_t)json_integer_value(status);
    r->name = get_text(j, "name");
    r->message = get_text(j, "message");
    r->expected = get_text(j, "expected");
    r->actual = get_text(j, "actual");
    r->transcript = get_text(j, "transcript");
    r->ms = json_number_value(json_object_get(j, "ms"));
    json_t *steps = json_object_get(j, "steps");
    r->steps = json_is_array(steps) ? json_incref(steps) : json_array();
    return 0;
}

/* ---------------------------------------------------------------- workers */

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

static void send_line(int fd, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!text) return;
    write_all(fd, text, strlen(text));
    write_all(fd, "\n", 1);
    free(text);
}

/* The worker process: never returns. It leaves the parent's target alone (its close would stop
   the parent's simulator) and ends with _exit, so no parent state is torn down twice. */
static void worker(size_t w, size_t njobs, size_t total, const conf_jobs_ops_t *ops, void *ud,
                   int fd)
{
    char err[1024];
    if (ops->setup(ud, err, sizeof err) != 0) {
        send_line(fd, json_pack("{s:s}", "error", err));
        _exit(0);
    }
    for (size_t i = w; i < total; i += njobs) {
        conf_result_t r;
        ops->run(ud, i, &r);
        send_line(
            fd, json_pack("{s:I,s:o}", "index", (json_int_t)i, "result", conf_result_to_json(&r)));
        conf_result_free(&r);
    }
    send_line(fd, json_pack("{s:b}", "lost", ops->lost(ud)));
    ops->teardown(ud);
    _exit(0);
}

typedef struct wstate {
    pid_t pid;
    int fd;
    conf_buf_t in;
    char *error; /* why its setup failed */
} wstate_t;

/* Handles one line from worker s; true when it reported a lost connection. */
static bool handle_line(wstate_t *s, const char *line, conf_merge_t *m)
{
    json_t *j = json_loads(line, 0, NULL);
    bool lost = false;
    json_t *idx = json_object_get(j, "index");
    conf_result_t r;
    if (json_is_integer(idx) && json_integer_value(idx) >= 0 &&
        conf_result_from_json(json_object_get(j, "result"), &r) == 0)
        conf_merge_put(m, (size_t)json_integer_value(idx), &r);
    else if (json_is_string(json_object_get(j, "error")) && !s->error)
        s->error = get_text(j, "error");
    else if (json_is_true(json_object_get(j, "lost")))
        lost = true;
    json_decref(j);
    return lost;
}

/* Reads what is there from s; false at end of file. */
static bool drain(wstate_t *s, conf_merge_t *m, bool *lost)
{
    char chunk[65536];
    ssize_t n = read(s->fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) return false;
    conf_buf_add(&s->in, chunk, (size_t)n);
    char *nl;
    size_t used = 0;
    while (s->in.len > used && (nl = memchr(s->in.p + used, '\n', s->in.len - used))) {
        *nl = 0;
        if (handle_line(s, s->in.p + used, m)) *lost = true;
        used = (size_t)(nl - s->in.p) + 1;
    }
    memmove(s->in.p, s->in.p + used, s->in.len - used);
    s->in.len -= used;
    s->in.p[s->in.len] = 0;
    return true;
}

/* Fills every index worker w never reported with a failure saying why. */
static void fill_missing(const wstate_t *s, size_t w, size_t njobs, size_t total, conf_merge_t *m)
{
    for (size_t i = w; i < total; i += njobs) {
        if (i < m->next || m->have[i]) continue;
        conf_result_t r;
        memset(&r, 0, sizeof r);
        r.status = CONF_FAIL;
        r.steps = json_array();
        r.message = s->error ? conf_asprintf("job %zu could not start: %s", w + 1, s->error)
                             : conf_asprintf("job %zu ended before running this scenario", w + 1);
        conf_merge_put(m, i, &r);
    }
}

bool conf_jobs_run(size_t njobs, size_t total, const conf_jobs_ops_t *ops, void *ud,
                   conf_merge_t *m)
{
    wstate_t *ws = conf_xcalloc(njobs, sizeof *ws);
    struct pollfd *pfd = conf_xcalloc(njobs, sizeof *pfd);
    bool lost = false;
    fflush(NULL); /* or a child's exit would repeat buffered output */
    for (size_t w = 0; w < njobs; w++) {
        int p[2];
        ws[w].fd = -1;
        if (pipe(p) != 0) continue;
        ws[w].pid = fork();
        if (ws[w].pid == 0) {
            close(p[0]);
            for (size_t k = 0; k < w; k++)
                if (ws[k].fd >= 0) close(ws[k].fd);
            worker(w, njobs, total, ops, ud, p[1]);
        }
        close(p[1]);
        if (ws[w].pid < 0) {
            close(p[0]);
            ws[w].error = conf_strdup(strerror(errno));
            continue;
        }
        ws[w].fd = p[0];
    }
    for (;;) {
        size_t open = 0;
        for (size_t w = 0; w < njobs; w++) {
            pfd[w].fd = ws[w].fd;
            pfd[w].events = POLLIN;
            pfd[w].revents = 0;
            open += ws[w].fd >= 0;
        }
        if (open == 0) break;
        if (poll(pfd, njobs, -1) < 0 && errno != EINTR) break;
        for (size_t w = 0; w < njobs; w++) {
            if (ws[w].fd < 0 || !(pfd[w].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (!drain(&ws[w], m, &lost)) {
                close(ws[w].fd);
                ws[w].fd = -1;
            }
        }
    }
    for (size_t w = 0; w < njobs; w++) {
        if (ws[w].pid > 0) waitpid(ws[w].pid, NULL, 0);
        if (ws[w].fd >= 0) close(ws[w].fd);
        fill_missing(&ws[w], w, njobs, total, m);
        conf_buf_free(&ws[w].in);
        free(ws[w].error);
    }
    free(ws);
    free(pfd);
    return lost;
}
