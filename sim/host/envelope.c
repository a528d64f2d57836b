/* envelope.c: seed 003's envelope, recognised in incoming messages and written around outgoing
   ones (host_env_*). */
#include "envelope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_codes.h"
#include "fw_json.h"

/* Nesting the envelope check follows; deeper messages go to the core as they are. */
#define ENVELOPE_DEPTH_MAX 64u

/* Tokens of the first try (on the stack): most messages fit. */
#define ENVELOPE_TOKS 64u

/*
 * Tokenises msg with the core's reader into stack (ENVELOPE_TOKS tokens) or, when more are
 * needed, a malloc'd array (*heap, freed by the caller). The tokens, or NULL when msg is not
 * JSON (the core then answers FW_RPC_PARSE_ERROR itself).
 */
static fw_json_tok_t *tokenize(const char *msg, size_t len, fw_json_doc_t *doc,
                               fw_json_tok_t *stack, fw_json_tok_t **heap)
{
    *heap = NULL;
    fw_err_t err = fw_json_parse(doc, msg, len, stack, ENVELOPE_TOKS, ENVELOPE_DEPTH_MAX);
    if (err == FW_OK) return stack;
    if (err != FW_ERR_JSON_NOMEM) return NULL;
    /* no text needs more (every token past the first takes two bytes or more) */
    uint32_t cap = (uint32_t)(len / 2 + 2);
    fw_json_tok_t *toks = malloc(cap * sizeof *toks);
    if (!toks) abort();
    if (fw_json_parse(doc, msg, len, toks, cap, ENVELOPE_DEPTH_MAX) != FW_OK) {
        free(toks);
        return NULL;
    }
    *heap = toks;
    return toks;
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/*
 * Whether msg is plain JSON-RPC without parsing it (the usual message costs no second parse):
 * an object whose first key is "jsonrpc" (an envelope has no such key), or a text with no
 * "type" in it and no escape (no key can be "type"). False: parse to know.
 */
static bool surely_plain(const char *msg, size_t len)
{
    static const char key[] = "\"jsonrpc\"";
    const char *end = msg + len, *p = skip_ws(msg, end);
    if (p < end && *p == '{') {
        p = skip_ws(p + 1, end);
        if ((size_t)(end - p) >= sizeof key - 1 && memcmp(p, key, sizeof key - 1) == 0) {
            p = skip_ws(p + sizeof key - 1, end);
            if (p < end && *p == ':') return true;
        }
    }
    return memchr(msg, '\\', len) == NULL && memmem(msg, len, "\"type\"", 6) == NULL;
}

/* The JSON text of token t (quotes included for a string). */
static void tok_text(const fw_json_doc_t *doc, int32_t t, const char **p, size_t *n)
{
    const fw_json_tok_t *tok = &doc->toks[t];
    bool str = tok->type == FW_JSON_STRING;
    *p = doc->buf + tok->start - (str ? 1 : 0);
    *n = tok->end - tok->start + (str ? 2u : 0u);
}

static char *session_id_of(const fw_json_doc_t *doc)
{
    int32_t sid = fw_json_obj_get(doc, 0, "session_id");
    if (sid < 0) return NULL;
    const char *p;
    size_t n;
    tok_text(doc, sid, &p, &n);
    char *s = strndup(p, n);
    if (!s) abort();
    return s;
}

void host_env_parse(const char *msg, size_t len, host_env_t *out)
{
    memset(out, 0, sizeof *out);
    out->payload = msg;
    out->payload_len = len;
    if (surely_plain(msg, len)) return;
    fw_json_doc_t doc;
    fw_json_tok_t stack[ENVELOPE_TOKS], *heap;
    fw_json_tok_t *toks = tokenize(msg, len, &doc, stack, &heap);
    int32_t type = -1;
    if (toks && toks[0].type == FW_JSON_OBJECT && fw_json_obj_get(&doc, 0, "jsonrpc") < 0)
        type = fw_json_obj_get(&doc, 0, "type");
    if (type < 0 || toks[type].type != FW_JSON_STRING) {
        free(heap);
        return;
    }
    if (fw_json_str_eq(&doc, (uint32_t)type, "mcp")) {
        out->kind = HOST_ENV_MCP;
        out->session_id = session_id_of(&doc);
        int32_t payload = fw_json_obj_get(&doc, 0, "payload");
        out->payload = NULL;
        out->payload_len = 0;
        if (payload >= 0 && toks[payload].type == FW_JSON_OBJECT)
            tok_text(&doc, payload, &out->payload, &out->payload_len);
    } else {
        out->kind = HOST_ENV_OTHER;
        if (fw_json_str_decode(&doc, (uint32_t)type, out->type, sizeof out->type) < 0)
            strcpy(out->type, "(long)");
        if (strcmp(out->type, "hello") == 0) out->session_id = session_id_of(&doc);
    }
    free(heap);
}

void host_env_free(host_env_t *env)
{
    free(env->session_id);
    env->session_id = NULL;
}

void host_env_head(host_buf_t *out, const char *session_id)
{
    static const char type_payload[] = "\"type\":\"mcp\",\"payload\":";
    host_buf_append(out, "{", 1);
    if (session_id) {
        host_buf_append(out, "\"session_id\":", 13);
        host_buf_append(out, session_id, strlen(session_id));
        host_buf_append(out, ",", 1);
    }
    host_buf_append(out, type_payload, sizeof type_payload - 1);
}

size_t host_env_bad_payload(char *buf, size_t cap)
{
    int n = snprintf(buf, cap,
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":%d,\"message\":"
                     "\"Invalid Request: an envelope of type mcp needs an object payload (one "
                     "JSON-RPC message)\"}}",
                     FW_RPC_INVALID_REQUEST);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}
