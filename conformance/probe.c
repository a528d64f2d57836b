/* probe.c: when discovery fails on a byte stream, probe the device and explain what it does. */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_WAIT_MS 400
#define BOOT_PAUSE_MS 1500

typedef struct probe_result {
    int lines, json_lines;
    int early;      /* lines that arrived before the newline was written */
    int id_zero;    /* error responses carrying id 0 */
    int right_id;   /* responses carrying the id that was sent */
    int other_id;   /* responses carrying another id */
    char first[96]; /* the first line, cut */
} probe_result_t;

/* Takes what arrives before deadline into pr (early: still before the newline). */
static void collect(conf_target_t *t, int64_t deadline, const json_t *id, bool early,
                    probe_result_t *pr)
{
    for (;;) {
        char *msg = NULL, err[256];
        size_t len = 0;
        if (t->ops->receive(t, deadline, &msg, &len, err, sizeof err) != 1) return;
        if (pr->lines++ == 0) snprintf(pr->first, sizeof pr->first, "%.80s", msg);
        pr->early += early;
        json_t *j = json_loadb(msg, len, 0, NULL);
        if (json_is_object(j)) {
            pr->json_lines++;
            const json_t *rid = json_object_get(j, "id");
            if (rid && json_equal((json_t *)rid, (json_t *)id))
                pr->right_id++;
            else if (json_object_get(j, "error") && json_is_integer(rid) &&
                     json_integer_value(rid) == 0)
                pr->id_zero++;
            else if (rid)
                pr->other_id++;
        }
        json_decref(j);
        free(msg);
    }
}

/* Sends text in pieces of size piece (0: whole) with gap_ms between them, then waits. */
static void probe(conf_target_t *t, const char *text, size_t piece, int gap_ms, double scale,
                  const json_t *id, probe_result_t *pr)
{
    memset(pr, 0, sizeof *pr);
    size_t n = strlen(text);
    char err[256];
    if (!piece) piece = n;
    for (size_t off = 0; off < n; off += piece) {
        size_t k = n - off < piece ? n - off : piece;
        if (t->ops->send_raw(t, text + off, k, err, sizeof err) != 0) return;
        bool before_newline = off + k < n;
        if (before_newline) collect(t, conf_now_ms() + gap_ms, id, true, pr);
    }
    collect(t, conf_now_ms() + (int64_t)(PROBE_WAIT_MS * scale), id, false, pr);
}

static void describe(conf_buf_t *b, const char *what, const probe_result_t *pr)
{
    conf_buf_addf(b, "%s: %d line(s)", what, pr->lines);
    if (pr->lines)
        conf_buf_addf(b, " (%d before the newline, %d with the request's id, %d errors with id 0), "
                         "first: %s",
                      pr->early, pr->right_id, pr->id_zero, pr->first);
    conf_buf_addf(b, "; ");
}

void conf_probe_discovery(conf_target_t *t, double scale, conf_buf_t *out)
{
    if (!t->stream || !t->ops->send_raw) return;
    static const char line[] = "{\"jsonrpc\":\"2.0\",\"id\":9001,\"method\":\"get_info\"}";
    char text[128];
    json_t *id = json_integer(9001), *sid = json_string("probe-9002");
    probe_result_t whole, one, eight, str, crlf, later;
    snprintf(text, sizeof text, "%s\n", line);
    probe(t, text, 0, 0, scale, id, &whole);
    probe(t, text, 1, 3, scale, id, &one);
    probe(t, text, 8, 20, scale, id, &eight);
    probe(t, "{\"jsonrpc\":\"2.0\",\"id\":\"probe-9002\",\"method\":\"get_info\"}\n", 0, 0, scale,
          sid, &str);
    snprintf(text, sizeof text, "%s\r\n", line);
    probe(t, text, 0, 0, scale, id, &crlf);
    conf_sleep_ms((int)(BOOT_PAUSE_MS * scale));
    probe_result_t noise;
    memset(&noise, 0, sizeof noise);
    collect(t, conf_now_ms(), id, false, &noise);
    snprintf(text, sizeof text, "%s\n", line);
    probe(t, text, 0, 0, scale, id, &later);
    conf_buf_t expl = {0};
    if (one.early + eight.early > 0)
        conf_buf_addf(&expl, "the device answers before the newline: it dispatches partial reads "
                             "(every piece of a request is handled as a message); ");
    if (whole.id_zero + one.id_zero + eight.id_zero + str.id_zero + crlf.id_zero + later.id_zero)
        conf_buf_addf(&expl, "errors carry id 0 (the request's id was 9001; an error must carry "
                             "the request's id, or null when it cannot be read); ");
    if (!whole.right_id && crlf.right_id)
        conf_buf_addf(&expl, "the device needs CR LF line endings; ");
    if (!whole.right_id && str.right_id)
        conf_buf_addf(&expl, "the device answers string ids only; ");
    if (!whole.right_id && !crlf.right_id && later.right_id)
        conf_buf_addf(&expl, "the device answered only after a pause: it was still booting "
                             "(raise boot_ms); ");
    if (!whole.right_id && whole.other_id)
        conf_buf_addf(&expl, "responses carry another id than the request's; ");
    int total = whole.lines + one.lines + eight.lines + str.lines + crlf.lines + later.lines;
    if (total == 0)
        conf_buf_addf(&expl, "not a single line in any probe: check the port, the baud rate and "
                             "that the firmware runs; ");
    else if (whole.json_lines + one.json_lines + eight.json_lines + later.json_lines == 0)
        conf_buf_addf(&expl, "lines arrived but none is JSON: a wrong baud rate, or boot noise; ");
    if (whole.right_id && !expl.len)
        conf_buf_addf(&expl, "get_info is answered when probed: discovery failed later "
                             "(list_tools) or only intermittently; ");
    conf_buf_addf(out, "probes: ");
    describe(out, "whole line", &whole);
    describe(out, "1-byte pieces", &one);
    describe(out, "8-byte pieces", &eight);
    describe(out, "string id", &str);
    describe(out, "CR LF", &crlf);
    describe(out, "after a pause", &later);
    conf_buf_addf(out, "explanation: %s",
                  expl.len ? conf_buf_str(&expl) : "none of the usual causes fits");
    conf_buf_free(&expl);
    json_decref(id);
    json_decref(sid);
}
