/* fixtures.c: the conformance fixtures: the test tools, resources and prompts of the official MCP
   conformance suite, as ordinary firmware tools, resources and prompts. */
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/*
 * Each fixture answers what the suite's scenario text asks for (conformance 0.1.16). They run
 * on the firmware core like any tool: the tools are FW_TOOL_MCP_RESULT (their result is the
 * CallToolResult, content blocks as the scenario shows them); logging and progress go through
 * fw_log and fw_call_progress, so they reach the client before the result; sampling and
 * elicitation ask the client with fw_call_ask and answer when the client's response arrives.
 * The scenarios' "~50 ms" pauses between log messages and progress steps are not made: the
 * device does not block, and what is checked is that every message arrives, in order, before
 * the result.
 */

/* A 1x1 red pixel PNG and 8 samples of 8 kHz 8-bit mono silence as WAV, in base64. */
static const char png_red_pixel[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC";
static const char wav_silence[] =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/* ---------------------------------------------------------------- content blocks */

static void text_block(fw_jw_t *w, const char *text)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_kv_str(w, "text", text);
    fw_jw_obj_end(w);
}

/* An image or audio block. */
static void media_block(fw_jw_t *w, const char *type, const char *data, const char *mime)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", type);
    fw_jw_kv_str(w, "data", data);
    fw_jw_kv_str(w, "mimeType", mime);
    fw_jw_obj_end(w);
}

static void resource_block(fw_jw_t *w, const char *uri, const char *mime, const char *text)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "resource");
    fw_jw_key(w, "resource");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "uri", uri);
    fw_jw_kv_str(w, "mimeType", mime);
    fw_jw_kv_str(w, "text", text);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
}

/* Starts a CallToolResult: the result object, then "content": [ (closed by the caller). */
static fw_jw_t *begin_content(fw_call_t *call)
{
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "content");
    fw_jw_arr_begin(w);
    return w;
}

static fw_err_t text_result(fw_call_t *call, const char *text)
{
    fw_jw_t *w = begin_content(call);
    text_block(w, text);
    fw_jw_arr_end(w);
    return FW_OK;
}

/* ---------------------------------------------------------------- content tools */

static fw_err_t simple_text(fw_call_t *call)
{
    return text_result(call, "This is a simple text response for testing.");
}

static fw_err_t image_content(fw_call_t *call)
{
    fw_jw_t *w = begin_content(call);
    media_block(w, "image", png_red_pixel, "image/png");
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t audio_content(fw_call_t *call)
{
    fw_jw_t *w = begin_content(call);
    media_block(w, "audio", wav_silence, "audio/wav");
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t embedded_resource(fw_call_t *call)
{
    fw_jw_t *w = begin_content(call);
    resource_block(w, "test://embedded-resource", "text/plain",
                   "This is an embedded resource content.");
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t multiple_content_types(fw_call_t *call)
{
    fw_jw_t *w = begin_content(call);
    text_block(w, "Multiple content types test:");
    media_block(w, "image", png_red_pixel, "image/png");
    resource_block(w, "test://mixed-content-resource", "application/json",
                   "{\"test\":\"data\",\"value\":123}");
    fw_jw_arr_end(w);
    return FW_OK;
}

/* Three info messages, each sent before the result while the call runs. */
static fw_err_t tool_with_logging(fw_call_t *call)
{
    fw_log(call->dev, FW_LOG_INFO, "Tool execution started");
    fw_log(call->dev, FW_LOG_INFO, "Tool processing data");
    fw_log(call->dev, FW_LOG_INFO, "Tool execution completed");
    return text_result(call, "Tool with logging executed successfully");
}

/* Progress 0, 50 and 100 of 100 when the call carries a progressToken. */
static fw_err_t tool_with_progress(fw_call_t *call)
{
    for (uint32_t done = 0; done <= 100; done += 50) fw_call_progress(call, done, 100, NULL);
    return text_result(call, "Tool with progress executed successfully");
}

/* A tool-execution error, reported as the scenario shows it (not logged as a failure). */
static fw_err_t error_handling(fw_call_t *call)
{
    fw_jw_t *w = begin_content(call);
    text_block(w, "This tool intentionally returns an error for testing");
    fw_jw_arr_end(w);
    fw_jw_kv_bool(w, "isError", true);
    return FW_OK;
}

/* ---------------------------------------------------------------- asking the client */

/* The decoded text of string token tok (malloc'd), or NULL when tok is not a string. */
static char *decode(const fw_json_doc_t *doc, int32_t tok)
{
    if (tok < 0 || doc->toks[tok].type != FW_JSON_STRING) return NULL;
    size_t cap = doc->toks[tok].end - doc->toks[tok].start + 1u;
    char *s = malloc(cap);
    if (s != NULL && fw_json_str_decode(doc, (uint32_t)tok, s, cap) < 0) s[0] = 0;
    return s;
}

/* Writes the JSON text of token tok into w's open string ("null" when tok is -1). */
static void chunk_json(fw_jw_t *w, const fw_json_doc_t *doc, int32_t tok)
{
    if (tok < 0) {
        fw_jw_str_chunk(w, "null", 4);
        return;
    }
    const fw_json_tok_t *t = &doc->toks[tok];
    bool quoted = t->type == FW_JSON_STRING; /* a string token spans its content only */
    size_t start = t->start - (quoted ? 1u : 0u), end = t->end + (quoted ? 1u : 0u);
    fw_jw_str_chunk(w, doc->buf + start, end - start);
}

/* The client answered with an error: a tool-execution error naming it. */
static fw_err_t refused(fw_call_t *call, const fw_answer_t *a, const char *what)
{
    char *message = decode(a->doc, fw_json_obj_get(a->doc, (uint32_t)a->error, "message"));
    fw_jw_t *w = begin_content(call);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
    fw_jw_str_chunk(w, what, strlen(what));
    fw_jw_str_chunk(w, " failed: ", 9);
    if (message != NULL) {
        fw_jw_str_chunk(w, message, strlen(message));
    } else {
        chunk_json(w, a->doc, a->error);
    }
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    fw_jw_kv_bool(w, "isError", true);
    free(message);
    return FW_OK;
}

/* sampling/createMessage with the prompt as the one user message; then "LLM response: ...". */
static fw_err_t sampling(fw_call_t *call)
{
    const fw_answer_t *a = fw_call_answer(call);
    if (a == NULL) {
        fw_jw_t *p;
        fw_err_t err = fw_call_ask(call, "sampling/createMessage", &p);
        if (err != FW_OK) return err;
        fw_jw_key(p, "messages");
        fw_jw_arr_begin(p);
        fw_jw_obj_begin(p);
        fw_jw_kv_str(p, "role", "user");
        fw_jw_key(p, "content");
        text_block(p, fw_call_arg(call, "prompt")->str);
        fw_jw_obj_end(p);
        fw_jw_arr_end(p);
        fw_jw_kv_i64(p, "maxTokens", 100);
        return FW_OK;
    }
    if (a->error >= 0) return refused(call, a, "sampling");
    int32_t content = a->result >= 0 ? fw_json_obj_get(a->doc, (uint32_t)a->result, "content") : -1;
    int32_t text = content >= 0 ? fw_json_obj_get(a->doc, (uint32_t)content, "text") : -1;
    char *decoded = decode(a->doc, text);
    fw_jw_t *w = begin_content(call);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
    fw_jw_str_chunk(w, "LLM response: ", 14);
    if (decoded != NULL) {
        fw_jw_str_chunk(w, decoded, strlen(decoded));
    } else {
        chunk_json(w, a->doc, content); /* not text content: shown as JSON */
    }
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    free(decoded);
    return FW_OK;
}

/* The text answering an elicitation: "<lead>action=accept, content={...}". */
static fw_err_t elicitation_result(fw_call_t *call, const fw_answer_t *a, const char *lead)
{
    if (a->error >= 0) return refused(call, a, "elicitation");
    int32_t action = a->result >= 0 ? fw_json_obj_get(a->doc, (uint32_t)a->result, "action") : -1;
    int32_t content = a->result >= 0 ? fw_json_obj_get(a->doc, (uint32_t)a->result, "content") : -1;
    char *act = decode(a->doc, action);
    fw_jw_t *w = begin_content(call);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
    fw_jw_str_chunk(w, lead, strlen(lead));
    fw_jw_str_chunk(w, "action=", 7);
    fw_jw_str_chunk(w, act != NULL ? act : "?", act != NULL ? strlen(act) : 1);
    fw_jw_str_chunk(w, ", content=", 10);
    chunk_json(w, a->doc, content);
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    free(act);
    return FW_OK;
}

/* A string property {"type": "string", "description": ...}. */
static void string_prop(fw_jw_t *w, const char *name, const char *description)
{
    fw_jw_key(w, name);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "string");
    fw_jw_kv_str(w, "description", description);
    fw_jw_obj_end(w);
}

static void str_array(fw_jw_t *w, const char *key, const char *const *values)
{
    fw_jw_key(w, key);
    fw_jw_arr_begin(w);
    for (size_t i = 0; values[i] != NULL; i++) fw_jw_str(w, values[i]);
    fw_jw_arr_end(w);
}

/* Starts elicitation/create: message, then requestedSchema's object with "properties": {
   open (the caller writes them and calls end_schema). */
static fw_err_t begin_elicit(fw_call_t *call, const char *message, fw_jw_t **p)
{
    fw_err_t err = fw_call_ask(call, "elicitation/create", p);
    if (err != FW_OK) return err;
    fw_jw_kv_str(*p, "message", message);
    fw_jw_key(*p, "requestedSchema");
    fw_jw_obj_begin(*p);
    fw_jw_kv_str(*p, "type", "object");
    fw_jw_key(*p, "properties");
    fw_jw_obj_begin(*p);
    return FW_OK;
}

/* Closes "properties" and adds "required" (NULL: none); the core closes the rest. */
static fw_err_t end_schema(fw_jw_t *p, const char *const *required)
{
    fw_jw_obj_end(p);
    if (required != NULL) str_array(p, "required", required);
    return FW_OK;
}

static fw_err_t elicitation(fw_call_t *call)
{
    static const char *const required[] = {"username", "email", NULL};
    const fw_answer_t *a = fw_call_answer(call);
    fw_jw_t *p;
    if (a != NULL) return elicitation_result(call, a, "User response: ");
    fw_err_t err = begin_elicit(call, fw_call_arg(call, "message")->str, &p);
    if (err != FW_OK) return err;
    string_prop(p, "username", "User's response");
    string_prop(p, "email", "User's email address");
    return end_schema(p, required);
}

/* A property of a primitive type with a default; the default is JSON text. */
static void default_prop(fw_jw_t *w, const char *name, const char *type, const char *def)
{
    fw_jw_key(w, name);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", type);
    fw_jw_key(w, "default");
    fw_jw_raw(w, def, strlen(def));
    fw_jw_obj_end(w);
}

/* SEP-1034: a default for every primitive type. */
static fw_err_t elicitation_defaults(fw_call_t *call)
{
    static const char *const statuses[] = {"active", "inactive", "pending", NULL};
    const fw_answer_t *a = fw_call_answer(call);
    fw_jw_t *p;
    if (a != NULL) return elicitation_result(call, a, "Elicitation completed: ");
    fw_err_t err = begin_elicit(call, "Please review and update the form fields with defaults", &p);
    if (err != FW_OK) return err;
    default_prop(p, "name", "string", "\"John Doe\"");
    default_prop(p, "age", "integer", "30");
    default_prop(p, "score", "number", "95.5");
    fw_jw_key(p, "status");
    fw_jw_obj_begin(p);
    fw_jw_kv_str(p, "type", "string");
    str_array(p, "enum", statuses);
    fw_jw_kv_str(p, "default", "active");
    fw_jw_obj_end(p);
    default_prop(p, "verified", "boolean", "true");
    return end_schema(p, NULL);
}

/* [{"const": values[i], "title": titles[i]}, ...] under key. */
static void titled(fw_jw_t *w, const char *key, const char *const *values,
                   const char *const *titles)
{
    fw_jw_key(w, key);
    fw_jw_arr_begin(w);
    for (size_t i = 0; values[i] != NULL; i++) {
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "const", values[i]);
        fw_jw_kv_str(w, "title", titles[i]);
        fw_jw_obj_end(w);
    }
    fw_jw_arr_end(w);
}

/* An array property whose items are written by the caller ("items" open, closed by
   end_array_prop). */
static void begin_array_prop(fw_jw_t *w, const char *name)
{
    fw_jw_key(w, name);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "array");
    fw_jw_key(w, "items");
    fw_jw_obj_begin(w);
}

static void end_array_prop(fw_jw_t *w)
{
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
}

/* SEP-1330: the five enum forms. */
static fw_err_t elicitation_enums(fw_call_t *call)
{
    static const char *const options[] = {"option1", "option2", "option3", NULL};
    static const char *const values[] = {"value1", "value2", "value3", NULL};
    static const char *const opts[] = {"opt1", "opt2", "opt3", NULL};
    static const char *const opt_names[] = {"Option One", "Option Two", "Option Three", NULL};
    static const char *const option_titles[] = {"First Option", "Second Option", "Third Option"};
    static const char *const choice_titles[] = {"First Choice", "Second Choice", "Third Choice"};
    const fw_answer_t *a = fw_call_answer(call);
    fw_jw_t *p;
    if (a != NULL) return elicitation_result(call, a, "Elicitation completed: ");
    fw_err_t err = begin_elicit(call, "Please select options from the enum fields", &p);
    if (err != FW_OK) return err;
    fw_jw_key(p, "untitledSingle");
    fw_jw_obj_begin(p);
    fw_jw_kv_str(p, "type", "string");
    str_array(p, "enum", options);
    fw_jw_obj_end(p);
    fw_jw_key(p, "titledSingle");
    fw_jw_obj_begin(p);
    fw_jw_kv_str(p, "type", "string");
    titled(p, "oneOf", values, option_titles);
    fw_jw_obj_end(p);
    fw_jw_key(p, "legacyEnum");
    fw_jw_obj_begin(p);
    fw_jw_kv_str(p, "type", "string");
    str_array(p, "enum", opts);
    str_array(p, "enumNames", opt_names);
    fw_jw_obj_end(p);
    begin_array_prop(p, "untitledMulti");
    fw_jw_kv_str(p, "type", "string");
    str_array(p, "enum", options);
    end_array_prop(p);
    begin_array_prop(p, "titledMulti");
    titled(p, "anyOf", values, choice_titles);
    end_array_prop(p);
    return end_schema(p, NULL);
}

/* ---------------------------------------------------------------- MCP 2026-07-28 */

/*
 * The fixtures of the stateless revision's scenarios (conformance 0.2.0-alpha.12): tools that
 * answer with an input-required result (the client answers in inputResponses and sends the
 * request again, with the requestState the core MACs), the diagnostic tools of server-stateless,
 * and a tool whose inputSchema uses JSON Schema 2020-12 keywords. In a request of a stateful
 * revision the input-required tools refuse: they exist for the stateless wire only (the
 * fixtures above ask with fw_call_ask there).
 */

static fw_err_t stateless_only(fw_call_t *call)
{
    return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s",
                          "this fixture answers MCP 2026-07-28 requests only (an input-required "
                          "result)");
}

/* Opens inputRequests' member key: {"method": method, "params": { (closed by end_request). */
static void begin_request(fw_jw_t *w, const char *key, const char *method)
{
    fw_jw_key(w, key);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "method", method);
    fw_jw_key(w, "params");
    fw_jw_obj_begin(w);
}

static void end_request(fw_jw_t *w)
{
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
}

/* An elicitation/create asking for one required property of type type. */
static void elicit_request(fw_jw_t *w, const char *key, const char *message, const char *prop,
                           const char *type)
{
    const char *required[] = {prop, NULL};
    begin_request(w, key, "elicitation/create");
    fw_jw_kv_str(w, "message", message);
    fw_jw_key(w, "requestedSchema");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "object");
    fw_jw_key(w, "properties");
    fw_jw_obj_begin(w);
    fw_jw_key(w, prop);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", type);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
    str_array(w, "required", required);
    fw_jw_obj_end(w);
    end_request(w);
}

static void sampling_request(fw_jw_t *w, const char *key, const char *text, int max_tokens)
{
    begin_request(w, key, "sampling/createMessage");
    fw_jw_key(w, "messages");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "role", "user");
    fw_jw_key(w, "content");
    text_block(w, text);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    fw_jw_kv_i64(w, "maxTokens", max_tokens);
    end_request(w);
}

static void roots_request(fw_jw_t *w, const char *key)
{
    begin_request(w, key, "roots/list");
    end_request(w);
}

/* The client's answer under key, or -1. */
static int32_t answer_of(fw_call_t *call, const char *key)
{
    return fw_call_input_response(call, key);
}

/* Whether the request carried the state `want` (verified by the core). */
static bool state_is(fw_call_t *call, const char *want)
{
    const char *state = fw_call_request_state(call);
    return state != NULL && strcmp(state, want) == 0;
}

/* A text result: lead, then the JSON of member path a.b of the answer object tok. */
static fw_err_t answer_text(fw_call_t *call, const char *lead, int32_t tok, const char *m1,
                            const char *m2)
{
    const fw_json_doc_t *doc = fw_call_doc(call);
    int32_t v = tok >= 0 && m1 != NULL ? fw_json_obj_get(doc, (uint32_t)tok, m1) : tok;
    if (v >= 0 && m2 != NULL && doc->toks[v].type == FW_JSON_OBJECT)
        v = fw_json_obj_get(doc, (uint32_t)v, m2);
    char *text = decode(doc, v);
    fw_jw_t *w = begin_content(call);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
    fw_jw_str_chunk(w, lead, strlen(lead));
    if (text != NULL) {
        fw_jw_str_chunk(w, text, strlen(text));
    } else {
        chunk_json(w, doc, v);
    }
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    free(text);
    return FW_OK;
}

static fw_err_t ir_elicitation(fw_call_t *call)
{
    int32_t a = answer_of(call, "user_name");
    if (a >= 0) return answer_text(call, "Hello, ", a, "content", "name");
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL) return stateless_only(call);
    elicit_request(w, "user_name", "What is your name?", "name", "string");
    return fw_call_input_end(call, NULL);
}

static fw_err_t ir_sampling(fw_call_t *call)
{
    int32_t a = answer_of(call, "capital_question");
    if (a >= 0) return answer_text(call, "LLM response: ", a, "content", "text");
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL) return stateless_only(call);
    sampling_request(w, "capital_question", "What is the capital of France?", 100);
    return fw_call_input_end(call, NULL);
}

static fw_err_t ir_list_roots(fw_call_t *call)
{
    int32_t a = answer_of(call, "client_roots");
    if (a >= 0) return answer_text(call, "Client roots: ", a, "roots", NULL);
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL) return stateless_only(call);
    roots_request(w, "client_roots");
    return fw_call_input_end(call, NULL);
}

/* Completes only with the answer AND the state it issued (request-state, tampered-state). */
static fw_err_t ir_request_state(fw_call_t *call)
{
    if (answer_of(call, "confirm") >= 0 && state_is(call, "confirm-pending"))
        return text_result(call, "state-ok: the request state verified and was round-tripped");
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL) return stateless_only(call);
    elicit_request(w, "confirm", "Please confirm", "ok", "boolean");
    return fw_call_input_end(call, "confirm-pending");
}

static fw_err_t ir_multiple(fw_call_t *call)
{
    if (answer_of(call, "user_name") >= 0 && answer_of(call, "greeting") >= 0 &&
        answer_of(call, "client_roots") >= 0 && state_is(call, "multi"))
        return text_result(call, "All three inputs received: name, greeting and roots");
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL) return stateless_only(call);
    elicit_request(w, "user_name", "What is your name?", "name", "string");
    sampling_request(w, "greeting", "Generate a greeting", 50);
    roots_request(w, "client_roots");
    return fw_call_input_end(call, "multi");
}

static fw_err_t ir_multi_round(fw_call_t *call)
{
    int32_t color = answer_of(call, "step2");
    if (color >= 0 && state_is(call, "round=2"))
        return answer_text(call, "Done after two rounds; favorite color: ", color, "content",
                           "color");
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL) return stateless_only(call);
    if (answer_of(call, "step1") >= 0 && state_is(call, "round=1")) {
        elicit_request(w, "step2", "Step 2: What is your favorite color?", "color", "string");
        return fw_call_input_end(call, "round=2");
    }
    elicit_request(w, "step1", "Step 1: What is your name?", "name", "string");
    return fw_call_input_end(call, "round=1");
}

/* Asks only for what the client declared it can answer. */
static fw_err_t ir_capabilities(fw_call_t *call)
{
    if (answer_of(call, "sampled") >= 0 || answer_of(call, "elicited") >= 0 ||
        answer_of(call, "roots") >= 0)
        return text_result(call, "Inputs received for the declared capabilities");
    bool sampling = fw_call_client_has(call, FW_CLIENT_SAMPLING);
    bool elicitation = fw_call_client_has(call, FW_CLIENT_ELICITATION);
    bool roots = fw_call_client_has(call, FW_CLIENT_ROOTS);
    if (!sampling && !elicitation && !roots)
        return fw_call_need_client(call, FW_CLIENT_SAMPLING);
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL) return stateless_only(call);
    if (sampling) sampling_request(w, "sampled", "Say hello", 20);
    if (elicitation) elicit_request(w, "elicited", "Your name?", "name", "string");
    if (roots) roots_request(w, "roots");
    return fw_call_input_end(call, NULL);
}

/* server-stateless: needs the sampling capability (-32021 without it). */
static fw_err_t missing_capability(fw_call_t *call)
{
    if (!fw_call_client_has(call, FW_CLIENT_SAMPLING))
        return fw_call_need_client(call, FW_CLIENT_SAMPLING);
    return text_result(call, "The client declared sampling");
}

/* server-stateless: what a 2025 tool sent as a request on the response stream becomes an
   input-required result (never a request of the server's own). */
static fw_err_t streaming_elicitation(fw_call_t *call)
{
    int32_t a = answer_of(call, "confirm");
    if (a >= 0) return answer_text(call, "Elicitation answered: ", a, "action", NULL);
    if (!fw_call_client_has(call, FW_CLIENT_ELICITATION))
        return fw_call_need_client(call, FW_CLIENT_ELICITATION);
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL) return stateless_only(call);
    elicit_request(w, "confirm", "Continue?", "ok", "boolean");
    return fw_call_input_end(call, NULL);
}

/* server-stateless: logs, which reach the client only when its request set a logLevel. */
static fw_err_t logging_tool(fw_call_t *call)
{
    fw_log(call->dev, FW_LOG_INFO, "test_logging_tool ran");
    return text_result(call, "Logged one info message");
}

/* The scenario's schema: $defs with an $anchor, allOf/anyOf, if/then/else. */
static const char json_schema_2020_12[] =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
    "\"$defs\":{\"address\":{\"$anchor\":\"addressDef\",\"type\":\"object\",\"properties\":"
    "{\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},\"properties\":{"
    "\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},"
    "\"contactMethod\":{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},"
    "\"phone\":{\"type\":\"string\"},\"email\":{\"type\":\"string\"}},"
    "\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],"
    "\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},\"required\":"
    "[\"contactMethod\"]},\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":"
    "[\"email\"]},\"additionalProperties\":false}";

static fw_err_t json_schema_tool(fw_call_t *call)
{
    return text_result(call, "Tool with JSON Schema 2020-12 features called");
}

/* A tool with an x-mcp-header parameter (SEP-2243): over HTTP its `region` travels in the
   Mcp-Param-Region header too, and the transport checks that both agree. */
static const char custom_header_schema[] =
    "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\","
    "\"description\":\"Region the request is routed to\",\"x-mcp-header\":\"Region\"}},"
    "\"required\":[\"region\"]}";

static fw_err_t custom_header_tool(fw_call_t *call)
{
    /* its schema is JSON text, so the core binds nothing: region is checked here */
    const fw_json_doc_t *doc = fw_call_doc(call);
    int32_t params = doc != NULL ? fw_json_obj_get(doc, 0, "params") : -1;
    int32_t args = params >= 0 ? fw_json_obj_get(doc, (uint32_t)params, "arguments") : -1;
    int32_t region = args >= 0 ? fw_json_obj_get(doc, (uint32_t)args, "region") : -1;
    if (region < 0 || doc->toks[region].type != FW_JSON_STRING)
        return fw_call_param_error(call, "region", "%s", "required, a string");
    return text_result(call, "The Mcp-Param-Region header matched arguments.region");
}

/* ---------------------------------------------------------------- the tool table */

static const fw_param_t prompt_param[] = {
    {.name = "prompt",
     .type = FW_PARAM_STRING,
     .required = true,
     .description = "The prompt to send to the LLM"},
};

static const fw_param_t message_param[] = {
    {.name = "message",
     .type = FW_PARAM_STRING,
     .required = true,
     .description = "The message to show the user"},
};

#define FIXTURE(tool_name, text, fn)                                                               \
    {                                                                                              \
        .name = tool_name, .description = text, .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT,   \
        .handler = fn                                                                              \
    }

/* server-stateless's list-change hooks (defined with the prompts, below) */
static fw_err_t trigger_tool_change(fw_call_t *call);
static fw_err_t trigger_prompt_change(fw_call_t *call);

/* The first page of tools/list holds FW_MCP_PAGE_TOOLS tools and the suite reads only that
   one: the schema fixture, which the suite looks up in the listing, comes first. */
static const fw_tool_t fixture_tools[SIM_FIXTURE_TOOLS] = {
    {.name = "json_schema_2020_12_tool",
     .description = "Tool with JSON Schema 2020-12 features",
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT | FW_TOOL_SCHEMA_JSON,
     .handler = json_schema_tool,
     .user = json_schema_2020_12},
    {.name = "test_custom_header",
     .description = "Conformance fixture (2026-07-28): a parameter mirrored in an Mcp-Param header",
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT | FW_TOOL_SCHEMA_JSON,
     .handler = custom_header_tool,
     .user = custom_header_schema},
    FIXTURE("test_simple_text", "Conformance fixture: returns one text block", simple_text),
    FIXTURE("test_image_content", "Conformance fixture: returns a 1x1 PNG image block",
            image_content),
    FIXTURE("test_audio_content", "Conformance fixture: returns a short WAV audio block",
            audio_content),
    FIXTURE("test_embedded_resource", "Conformance fixture: returns an embedded text resource",
            embedded_resource),
    FIXTURE("test_multiple_content_types",
            "Conformance fixture: returns text, image and embedded resource blocks",
            multiple_content_types),
    FIXTURE("test_tool_with_logging",
            "Conformance fixture: sends three info log messages before its result",
            tool_with_logging),
    FIXTURE("test_tool_with_progress",
            "Conformance fixture: reports progress 0, 50 and 100 of 100 for a progressToken",
            tool_with_progress),
    FIXTURE("test_error_handling", "Conformance fixture: always returns a tool error (isError)",
            error_handling),
    {.name = "test_sampling",
     .description = "Conformance fixture: asks the client's LLM (sampling/createMessage) and "
                    "returns its response",
     .params = prompt_param,
     .param_count = 1,
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT,
     .handler = sampling},
    {.name = "test_elicitation",
     .description = "Conformance fixture: asks the user (elicitation/create) for a username "
                    "and an email and returns the answer",
     .params = message_param,
     .param_count = 1,
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT,
     .handler = elicitation},
    FIXTURE("test_elicitation_sep1034_defaults",
            "Conformance fixture: elicitation with a default for every primitive type "
            "(SEP-1034)",
            elicitation_defaults),
    FIXTURE("test_elicitation_sep1330_enums",
            "Conformance fixture: elicitation with the five enum schema forms (SEP-1330)",
            elicitation_enums),
    FIXTURE("test_input_required_result_elicitation",
            "Conformance fixture (2026-07-28): asks for a name with an input-required result",
            ir_elicitation),
    FIXTURE("test_input_required_result_sampling",
            "Conformance fixture (2026-07-28): asks the client's LLM with an input-required "
            "result",
            ir_sampling),
    FIXTURE("test_input_required_result_list_roots",
            "Conformance fixture (2026-07-28): asks for the client's roots with an "
            "input-required result",
            ir_list_roots),
    FIXTURE("test_input_required_result_request_state",
            "Conformance fixture (2026-07-28): completes only with the requestState it issued",
            ir_request_state),
    FIXTURE("test_input_required_result_multiple_inputs",
            "Conformance fixture (2026-07-28): three input requests (elicitation, sampling, "
            "roots) at once",
            ir_multiple),
    FIXTURE("test_input_required_result_multi_round",
            "Conformance fixture (2026-07-28): two rounds of input, the state changing",
            ir_multi_round),
    FIXTURE("test_input_required_result_tampered_state",
            "Conformance fixture (2026-07-28): a requestState whose MAC must verify",
            ir_request_state),
    FIXTURE("test_input_required_result_capabilities",
            "Conformance fixture (2026-07-28): asks only for what the client declared",
            ir_capabilities),
    FIXTURE("test_missing_capability",
            "Conformance fixture (2026-07-28): needs the client's sampling capability",
            missing_capability),
    FIXTURE("test_streaming_elicitation",
            "Conformance fixture (2026-07-28): elicits by an input-required result, never a "
            "request of its own",
            streaming_elicitation),
    FIXTURE("test_logging_tool",
            "Conformance fixture (2026-07-28): logs one info message (sent only for a logLevel)",
            logging_tool),
    {.name = "test_trigger_tool_change",
     .description = "Conformance fixture (2026-07-28): adds a tool (test_added_tool_N) to the "
                    "list, so listen streams that asked for toolsListChanged hear of it",
     .flags = FW_TOOL_MCP_RESULT,
     .handler = trigger_tool_change},
    {.name = "test_trigger_prompt_change",
     .description = "Conformance fixture (2026-07-28): adds a prompt (test_added_prompt_N) to "
                    "the list, so listen streams that asked for promptsListChanged hear of it",
     .flags = FW_TOOL_MCP_RESULT,
     .handler = trigger_prompt_change},
};

/* ---------------------------------------------------------------- resources */

/* {"contents": [{"uri", "mimeType", key: value}]} with a text or blob value. */
static fw_err_t one_content(fw_call_t *call, const char *uri, const char *mime, const char *key,
                            const char *value)
{
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "contents");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "uri", uri);
    fw_jw_kv_str(w, "mimeType", mime);
    fw_jw_kv_str(w, key, value);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

/* A fixed resource's content is its descriptor's user text. */
static fw_err_t read_text(fw_call_t *call, const fw_resource_t *res, const char *uri)
{
    return one_content(call, uri, res->mime_type, "text", res->user);
}

static fw_err_t read_blob(fw_call_t *call, const fw_resource_t *res, const char *uri)
{
    return one_content(call, uri, res->mime_type, "blob", res->user);
}

/* test://template/{id}/data: {"id": "<id>", "templateTest": true, "data": "Data for ID: <id>"}
   (the core matched the template, so the id is what lies between prefix and suffix). */
static fw_err_t read_template(fw_call_t *call, const fw_resource_t *res, const char *uri)
{
    static const char prefix[] = "test://template/", suffix[] = "/data";
    size_t id_len = strlen(uri) - (sizeof prefix - 1u) - (sizeof suffix - 1u);
    const char *id = uri + sizeof prefix - 1u;
    fw_jw_t *w = fw_call_result(call), inner;
    fw_jw_key(w, "contents");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "uri", uri);
    fw_jw_kv_str(w, "mimeType", res->mime_type);
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
    fw_jw_init(&inner, fw_jw_string_sink(w));
    fw_jw_obj_begin(&inner);
    fw_jw_key(&inner, "id");
    fw_jw_strn(&inner, id, id_len);
    fw_jw_kv_bool(&inner, "templateTest", true);
    fw_jw_key(&inner, "data");
    fw_jw_str_begin(&inner);
    fw_jw_str_chunk(&inner, "Data for ID: ", 13);
    fw_jw_str_chunk(&inner, id, id_len);
    fw_jw_str_end(&inner);
    fw_jw_obj_end(&inner);
    fw_jw_flush(&inner);
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

static const fw_resource_t fixture_resources[] = {
    {"test://static-text", "static-text", "Conformance fixture: a static text resource",
     "text/plain", read_text, "This is the content of the static text resource."},
    {"test://static-binary", "static-binary",
     "Conformance fixture: a static binary resource (a 1x1 PNG)", "image/png", read_blob,
     png_red_pixel},
    {"test://watched-resource", "watched-resource",
     "Conformance fixture: a resource to subscribe to", "text/plain", read_text,
     "Watched resource content"},
    {"test://template/{id}/data", "template-data",
     "Conformance fixture: a resource template; the content names the id", "application/json",
     read_template, NULL},
};

/* ---------------------------------------------------------------- prompts */

/* Opens {"role": "user", "content": (the content block comes next). */
static void begin_message(fw_jw_t *w)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "role", "user");
    fw_jw_key(w, "content");
}

static void text_message(fw_jw_t *w, const char *text)
{
    begin_message(w);
    text_block(w, text);
    fw_jw_obj_end(w);
}

static fw_jw_t *begin_messages(fw_call_t *call)
{
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "messages");
    fw_jw_arr_begin(w);
    return w;
}

static fw_err_t simple_prompt(fw_call_t *call, const fw_prompt_t *p, const char *const *argv)
{
    (void)p;
    (void)argv;
    fw_jw_t *w = begin_messages(call);
    text_message(w, "This is a simple prompt for testing.");
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t prompt_with_arguments(fw_call_t *call, const fw_prompt_t *p,
                                      const char *const *argv)
{
    (void)p;
    fw_jw_t *w = begin_messages(call);
    begin_message(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
    fw_jw_str_chunk(w, "Prompt with arguments: arg1='", 29);
    fw_jw_str_chunk(w, argv[0], strlen(argv[0]));
    fw_jw_str_chunk(w, "', arg2='", 9);
    fw_jw_str_chunk(w, argv[1], strlen(argv[1]));
    fw_jw_str_chunk(w, "'", 1);
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t prompt_with_embedded_resource(fw_call_t *call, const fw_prompt_t *p,
                                              const char *const *argv)
{
    (void)p;
    fw_jw_t *w = begin_messages(call);
    begin_message(w);
    resource_block(w, argv[0], "text/plain", "Embedded resource content for testing.");
    fw_jw_obj_end(w);
    text_message(w, "Please process the embedded resource above.");
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t prompt_with_image(fw_call_t *call, const fw_prompt_t *p, const char *const *argv)
{
    (void)p;
    (void)argv;
    fw_jw_t *w = begin_messages(call);
    begin_message(w);
    media_block(w, "image", png_red_pixel, "image/png");
    fw_jw_obj_end(w);
    text_message(w, "Please analyze the image above.");
    fw_jw_arr_end(w);
    return FW_OK;
}

static const char *const arg1_values[] = {"hello", "testValue1", NULL};
static const char *const arg2_values[] = {"world", "testValue2", NULL};

static const fw_prompt_arg_t two_args[] = {
    {"arg1", "First test argument", true, arg1_values},
    {"arg2", "Second test argument", true, arg2_values},
};

static const fw_prompt_arg_t uri_arg[] = {
    {"resourceUri", "URI of the resource to embed", true, NULL},
};

/* 2026-07-28: a prompt that needs the user's context first (an input-required result). */
static fw_err_t input_required_prompt(fw_call_t *call, const fw_prompt_t *p,
                                      const char *const *argv)
{
    (void)p;
    (void)argv;
    int32_t a = fw_call_input_response(call, "user_context");
    if (a < 0) {
        fw_jw_t *w = fw_call_input_begin(call);
        if (w == NULL) return stateless_only(call);
        elicit_request(w, "user_context", "What context should the prompt use?", "context",
                       "string");
        return fw_call_input_end(call, NULL);
    }
    const fw_json_doc_t *doc = fw_call_doc(call);
    int32_t content = fw_json_obj_get(doc, (uint32_t)a, "content");
    char *context = content >= 0 ? decode(doc, fw_json_obj_get(doc, (uint32_t)content,
                                                                 "context"))
                                 : NULL;
    fw_jw_t *w = begin_messages(call);
    begin_message(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
    fw_jw_str_chunk(w, "Prompt with the context: ", 25);
    if (context != NULL) fw_jw_str_chunk(w, context, strlen(context));
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    free(context);
    return FW_OK;
}

static const fw_prompt_t fixture_prompts[] = {
    {"test_simple_prompt", "Simple prompt", "Conformance fixture: a prompt without arguments", NULL,
     0, simple_prompt, NULL},
    {"test_prompt_with_arguments", "Prompt with arguments",
     "Conformance fixture: a prompt that repeats its two arguments", two_args, 2,
     prompt_with_arguments, NULL},
    {"test_prompt_with_embedded_resource", "Prompt with an embedded resource",
     "Conformance fixture: a prompt that embeds the resource it is given", uri_arg, 1,
     prompt_with_embedded_resource, NULL},
    {"test_prompt_with_image", "Prompt with an image",
     "Conformance fixture: a prompt with an image", NULL, 0, prompt_with_image, NULL},
    {"test_input_required_result_prompt", "Prompt needing input",
     "Conformance fixture (2026-07-28): asks for context with an input-required result", NULL,
     0, input_required_prompt, NULL},
};

/* ---------------------------------------------------------------- lists that change

   The list-change hooks of server-stateless add real entries, one per call, from a pool each
   (the core has no removal: a pool used up is an error result). The suite calls the tool hook
   three times and the prompt hook once in a run. */

static fw_err_t added_tool(fw_call_t *call)
{
    return text_result(call, "A tool test_trigger_tool_change added at run time.");
}

static fw_err_t added_prompt(fw_call_t *call, const fw_prompt_t *p, const char *const *argv)
{
    (void)p;
    (void)argv;
    fw_jw_t *w = begin_messages(call);
    text_message(w, "A prompt test_trigger_prompt_change added at run time.");
    fw_jw_arr_end(w);
    return FW_OK;
}

#define ADDED_TOOL(n)                                                                              \
    {                                                                                              \
        .name = "test_added_tool_" #n, .description = "Added by test_trigger_tool_change",         \
        .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT, .handler = added_tool                     \
    }
static const fw_tool_t added_tools[] = {ADDED_TOOL(1), ADDED_TOOL(2), ADDED_TOOL(3),
                                        ADDED_TOOL(4)};
static const fw_prompt_t added_prompts[] = {
    {"test_added_prompt_1", NULL, "Added by test_trigger_prompt_change", NULL, 0, added_prompt,
     NULL},
    {"test_added_prompt_2", NULL, "Added by test_trigger_prompt_change", NULL, 0, added_prompt,
     NULL},
    {"test_added_prompt_3", NULL, "Added by test_trigger_prompt_change", NULL, 0, added_prompt,
     NULL},
};

/* Adds the first entry of the pool that is not in the list yet: its name as the result. */
static fw_err_t trigger_tool_change(fw_call_t *call)
{
    for (size_t i = 0; i < sizeof added_tools / sizeof *added_tools; i++) {
        fw_err_t err = fw_device_add_tool(call->dev, &added_tools[i]);
        if (err == FW_OK) return text_result(call, added_tools[i].name);
        if (err != FW_ERR_EXISTS) return fw_call_errorf(call, err, "%s", "no room for a tool");
    }
    return fw_call_errorf(call, FW_ERR_NO_SPACE, "the %u tools this hook adds are all added",
                          (unsigned)(sizeof added_tools / sizeof *added_tools));
}

static fw_err_t trigger_prompt_change(fw_call_t *call)
{
    for (size_t i = 0; i < sizeof added_prompts / sizeof *added_prompts; i++) {
        fw_err_t err = fw_device_add_prompt(call->dev, &added_prompts[i]);
        if (err == FW_OK) return text_result(call, added_prompts[i].name);
        if (err != FW_ERR_EXISTS) return fw_call_errorf(call, err, "%s", "no room for a prompt");
    }
    return fw_call_errorf(call, FW_ERR_NO_SPACE, "the %u prompts this hook adds are all added",
                          (unsigned)(sizeof added_prompts / sizeof *added_prompts));
}

/* ---------------------------------------------------------------- tasks (2026-07-28 extension)

   The fixtures of the suite's tasks-* scenarios. A task tool runs in steps over the device's
   time (fw_task.h): slow_compute sleeps its seconds one step a second, so a virtual clock that
   stands still keeps it working; failing_job and protocol_error_job end after a step; the
   confirm_delete and multi_input tasks park in input_required until tasks/update answers. */

static const fw_param_t greet_params[] = {
    {.name = "name", .type = FW_PARAM_STRING, .required = true, .description = "Who to greet"},
};

static fw_err_t greet(fw_call_t *call)
{
    char text[96];
    snprintf(text, sizeof text, "Hello, %s!", fw_call_arg(call, "name")->str);
    return text_result(call, text);
}

static const fw_param_t slow_params[] = {
    {.name = "seconds",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .has_default = true,
     .min = 0,
     .max = 3600,
     .def_int = 1,
     .description = "Seconds of device time the computation takes"},
    {.name = "label", .type = FW_PARAM_STRING, .description = "Echoed in the result"},
};

/* A string argument of a task step (empty when absent or too long). */
static void step_str(const fw_task_step_t *t, const char *key, char *out, size_t cap)
{
    int32_t v = t->args >= 0 ? fw_json_obj_get(t->args_doc, (uint32_t)t->args, key) : -1;
    out[0] = 0;
    if (v < 0 || fw_json_str_decode(t->args_doc, (uint32_t)v, out, cap) < 0) out[0] = 0;
}

static int64_t step_int(const fw_task_step_t *t, const char *key, int64_t def)
{
    int32_t v = t->args >= 0 ? fw_json_obj_get(t->args_doc, (uint32_t)t->args, key) : -1;
    int64_t n;
    return v >= 0 && fw_json_get_i64(t->args_doc, (uint32_t)v, &n) == FW_OK ? n : def;
}

/* Without the tasks extension the device cannot sleep inside a request: it answers at once. */
static fw_err_t slow_compute_now(fw_call_t *call)
{
    char text[96];
    const fw_arg_t *label = fw_call_arg(call, "label");
    snprintf(text, sizeof text, "slow_compute %s: done (%d s, not waited: no task)",
             label->present ? label->str : "", (int)fw_call_arg(call, "seconds")->i);
    return text_result(call, text);
}

/* One step a second; state counts the seconds done. */
static fw_task_rc_t slow_compute_step(fw_task_step_t *t)
{
    int64_t seconds = step_int(t, "seconds", 1);
    char label[48];
    if ((int64_t)t->state < seconds) {
        t->state++;
        t->wake_ms = 1000;
        return FW_TASK_WORKING;
    }
    step_str(t, "label", label, sizeof label);
    snprintf(t->text, t->text_cap, "slow_compute %s: done after %u s", label,
             (unsigned)t->state);
    return FW_TASK_DONE;
}

static fw_err_t task_only(fw_call_t *call)
{
    return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s runs only as a task", call->tool->name);
}

static fw_task_rc_t failing_job_step(fw_task_step_t *t)
{
    if (t->state++ == 0) {
        t->wake_ms = 1000;
        return FW_TASK_WORKING;
    }
    snprintf(t->text, t->text_cap, "failing_job: the job failed (on purpose)");
    return FW_TASK_TOOL_ERROR;
}

static fw_err_t protocol_error_now(fw_call_t *call)
{
    return fw_call_errorf(call, FW_ERR_INTERNAL, "%s", "protocol_error_job: internal failure");
}

static fw_task_rc_t protocol_error_step(fw_task_step_t *t)
{
    if (t->state++ == 0) {
        t->wake_ms = 200;
        return FW_TASK_WORKING;
    }
    snprintf(t->text, t->text_cap, "protocol_error_job: internal failure (on purpose)");
    return FW_TASK_FAILED;
}

static const fw_param_t filename_params[] = {
    {.name = "filename", .type = FW_PARAM_STRING, .required = true, .description = "File to delete"},
};

static fw_err_t needs_task(fw_call_t *call)
{
    return text_result(call, "this tool asks the user through a task: call it with the tasks "
                             "extension");
}

/* state 0: ask (input-0, or input-0 and input-1); then complete with what was accepted. */
static fw_task_rc_t ask_step(fw_task_step_t *t, uint8_t want, const char *what)
{
    char name[48];
    if (t->state++ == 0) {
        t->input_want = want;
        step_str(t, "filename", name, sizeof name);
        snprintf(t->text, t->text_cap, "%s%s?", what, name);
        return FW_TASK_INPUT;
    }
    snprintf(t->text, t->text_cap, "%s: %u of %u requests accepted", what,
             (unsigned)__builtin_popcount(t->input_accepted), (unsigned)__builtin_popcount(want));
    return FW_TASK_DONE;
}

static fw_task_rc_t confirm_delete_step(fw_task_step_t *t)
{
    return ask_step(t, 0x1, "Delete ");
}

static fw_task_rc_t multi_input_step(fw_task_step_t *t)
{
    return ask_step(t, 0x3, "Two questions at once");
}

/* test_tool_with_task: round 1 asks the user's name (an input-required result), round 2
   starts the task with it; the task's result greets the name gathered before it began. */
static fw_err_t tool_with_task(fw_call_t *call)
{
    int32_t a = answer_of(call, "user_name");
    if (a < 0) {
        fw_jw_t *w = fw_call_input_begin(call);
        if (w == NULL) return stateless_only(call);
        elicit_request(w, "user_name", "What is your name?", "name", "string");
        return fw_call_input_end(call, NULL);
    }
    const fw_json_doc_t *doc = fw_call_doc(call);
    int32_t content = fw_json_obj_get(doc, (uint32_t)a, "content");
    int32_t v = content >= 0 ? fw_json_obj_get(doc, (uint32_t)content, "name") : -1;
    char name[40], args[64];
    if (v < 0 || fw_json_str_decode(doc, (uint32_t)v, name, sizeof name) < 0)
        return fw_call_param_error(call, "inputResponses/user_name", "%s",
                                   "needs content.name, a string of up to 39 bytes");
    for (char *p = name; *p; p++) /* kept as JSON text in the task: no quote, no escape */
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) *p = '_';
    snprintf(args, sizeof args, "{\"user_name\":\"%s\"}", name);
    return fw_call_start_task(call, args);
}

static fw_task_rc_t tool_with_task_step(fw_task_step_t *t)
{
    char name[40];
    step_str(t, "user_name", name, sizeof name);
    snprintf(t->text, t->text_cap, "Hello, %s! (gathered before the task began)", name);
    return FW_TASK_DONE;
}

static const fw_tool_t task_tools[] = {
    {.name = "greet",
     .description = "Conformance fixture (tasks): a tool that never runs as a task",
     .params = greet_params,
     .param_count = 1,
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT,
     .handler = greet},
    {.name = "slow_compute",
     .description = "Conformance fixture (tasks): takes `seconds` of device time as a task",
     .params = slow_params,
     .param_count = 2,
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT | FW_TOOL_TASK_OPTIONAL,
     .handler = slow_compute_now},
    {.name = "failing_job",
     .description = "Conformance fixture (tasks): a task whose tool fails after a second",
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT | FW_TOOL_TASK_REQUIRED,
     .handler = task_only},
    {.name = "protocol_error_job",
     .description = "Conformance fixture (tasks): a task that fails at the protocol level",
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT | FW_TOOL_TASK_OPTIONAL,
     .handler = protocol_error_now},
    {.name = "confirm_delete",
     .description = "Conformance fixture (tasks): asks the user to confirm, then completes",
     .params = filename_params,
     .param_count = 1,
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT | FW_TOOL_TASK_OPTIONAL,
     .handler = needs_task},
    {.name = "multi_input",
     .description = "Conformance fixture (tasks): asks two questions at once",
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT | FW_TOOL_TASK_OPTIONAL,
     .handler = needs_task},
    {.name = "test_tool_with_task",
     .description = "Conformance fixture (tasks): asks for a name (input required), then runs "
                    "as a task",
     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT | FW_TOOL_TASK_REQUIRED,
     .handler = tool_with_task},
};

static const fw_task_tool_t task_steps[] = {
    {&task_tools[1], slow_compute_step, false},   {&task_tools[2], failing_job_step, false},
    {&task_tools[3], protocol_error_step, false}, {&task_tools[4], confirm_delete_step, false},
    {&task_tools[5], multi_input_step, false},    {&task_tools[6], tool_with_task_step, true},
};

/* ---------------------------------------------------------------- registration */

fw_err_t sim_fixtures_add(fw_device_t *dev)
{
    fw_err_t err = FW_OK;
    for (size_t i = 0; err == FW_OK && i < SIM_FIXTURE_TOOLS; i++)
        err = fw_device_add_tool(dev, &fixture_tools[i]);
    for (size_t i = 0; err == FW_OK && i < sizeof fixture_resources / sizeof *fixture_resources;
         i++)
        err = fw_device_add_resource(dev, &fixture_resources[i]);
    for (size_t i = 0; err == FW_OK && i < sizeof fixture_prompts / sizeof *fixture_prompts; i++)
        err = fw_device_add_prompt(dev, &fixture_prompts[i]);
    for (size_t i = 0; err == FW_OK && i < sizeof task_tools / sizeof *task_tools; i++)
        err = fw_device_add_tool(dev, &task_tools[i]);
    for (size_t i = 0; err == FW_OK && i < sizeof task_steps / sizeof *task_steps; i++)
        err = fw_device_add_task_tool(dev, &task_steps[i]);
    return err;
}

fw_err_t sim_enable_fixtures(sim_t *sim)
{
    fw_err_t err = sim->fixtures ? FW_OK : sim_fixtures_add(&sim->dev);
    if (err == FW_OK) sim->fixtures = true;
    return err;
}
