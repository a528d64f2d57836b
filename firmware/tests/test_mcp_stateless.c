/* test_mcp_stateless.c: specification of MCP 2026-07-28 in the core: per-request _meta,
   server/discover, removed methods, resultType and caching hints, input-required results with a
   MAC'd request state, missing client capabilities, and the SipHash-2-4 behind the MAC. */
#include <stdio.h>

#include "test_mcp_util.h"

#if FW_WITH_MCP

#include "../core/mcp_internal.h"

#define META_NO_CAPS "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\""
#define META META_NO_CAPS ",\"io.modelcontextprotocol/clientCapabilities\":{}}"
#define META_SAMPLING                                                                              \
    META_NO_CAPS ",\"io.modelcontextprotocol/clientCapabilities\":{\"sampling\":{}}}"

/* ---------------------------------------------------------------- params readers */

#if FW_SPEED_PATHS >= 2
/* fw_mcp_members finds in one pass what fw_mcp_member finds key by key: the first of repeated
   keys, keys with escapes by their text, members of nested objects not, nothing in an array,
   a scalar or an absent object. */
START_TEST(test_members_one_pass_matches_member)
{
    static const char *const texts[] = {
        "{\"name\":\"a\",\"arguments\":{\"name\":1},\"_meta\":{}}",
        "{\"task\":1,\"n\\u0061me\":2,\"name\":3,\"task\":4,\"\\u005fmeta\":5}",
        "{\"\":1,\"nam\":2,\"names\":3,\"n\":4,\"argument\":5,\"x\":{\"task\":6}}",
        "{}",
        "[\"name\",\"task\"]",
        "\"name\"",
    };
    static const char *const keys[] = {"name", "arguments", "_meta", "task", ""};
    for (size_t i = 0; i < FW_ARRAY_LEN(texts); i++) {
        fw_json_tok_t toks[32];
        fw_json_doc_t doc;
        ck_assert_int_eq(fw_json_parse(&doc, texts[i], strlen(texts[i]), toks, 32, 8), FW_OK);
        fw_mcp_req_t q = {.doc = &doc};
        for (int32_t obj = -1; obj < (int32_t)doc.count; obj++) {
            int32_t got[FW_ARRAY_LEN(keys)];
            fw_mcp_members(&q, obj, keys, FW_ARRAY_LEN(keys), got);
            for (size_t k = 0; k < FW_ARRAY_LEN(keys); k++)
                ck_assert_msg(got[k] == fw_mcp_member(&q, obj, keys[k]),
                              "%s, token %d, key '%s': %d", texts[i], (int)obj, keys[k],
                              (int)got[k]);
        }
    }
}
END_TEST
#endif

/* ---------------------------------------------------------------- SipHash-2-4 */

/* The reference vectors of the SipHash paper (Aumasson and Bernstein, 2012): key 00..0f,
   messages 00 .. (n-1). */
static uint64_t sip_of(size_t n)
{
    uint8_t key[16], msg[64];
    for (unsigned i = 0; i < 16u; i++) key[i] = (uint8_t)i;
    for (size_t i = 0; i < n; i++) msg[i] = (uint8_t)i;
    fw_sip_t s;
    fw_sip_init(&s, key);
    fw_sip_update(&s, msg, n);
    return fw_sip_final(&s);
}

START_TEST(test_siphash_reference_vectors)
{
    ck_assert_uint_eq(sip_of(0), 0x726fdb47dd0e0e31ull);
    ck_assert_uint_eq(sip_of(15), 0xa129ca6149be45e5ull); /* the paper's worked example */
}
END_TEST

START_TEST(test_siphash_incremental_equals_one_pass)
{
    uint8_t key[16] = {1, 2, 3}, msg[37];
    for (unsigned i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 7u);
    fw_sip_t a, b;
    fw_sip_init(&a, key);
    fw_sip_update(&a, msg, sizeof msg);
    fw_sip_init(&b, key);
    fw_sip_update(&b, msg, 5);
    fw_sip_update(&b, msg + 5, 0);
    fw_sip_update(&b, msg + 5, 19);
    fw_sip_update(&b, msg + 24, sizeof msg - 24);
    ck_assert_uint_eq(fw_sip_final(&a), fw_sip_final(&b));
    key[0] ^= 1u;
    fw_sip_init(&b, key);
    fw_sip_update(&b, msg, sizeof msg);
    fw_sip_init(&a, key);
    ck_assert_uint_ne(fw_sip_final(&b), fw_sip_final(&a)); /* the message counts */
}
END_TEST

/* ---------------------------------------------------------------- tools of the tests */

/* Asks for a name by elicitation; completes once the answer came, with the state's round. */
static fw_err_t ask_name(fw_call_t *call)
{
    int32_t answer = fw_call_input_response(call, "name");
    const char *state = fw_call_request_state(call);
    if (answer >= 0 && state != NULL) {
        fw_jw_t *w = fw_call_result(call);
        fw_jw_kv_str(w, "state", state);
        return FW_OK;
    }
    if (!fw_call_client_has(call, FW_CLIENT_ELICITATION))
        return fw_call_need_client(call, FW_CLIENT_ELICITATION);
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL)
        return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s", "not a stateless request");
    fw_jw_key(w, "name");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "method", "elicitation/create");
    fw_jw_key(w, "params");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "message", "Your name?");
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
    return fw_call_input_end(call, "round-1");
}

static const fw_tool_t tool_ask = {.name = "ask_name",
                                   .description = "asks for a name",
                                   .flags = FW_TOOL_MCP_RESULT,
                                   .handler = ask_name};

/* A 2025-style tool: fw_call_ask, then the answer's text (a stateless request turns the ask
   into an input-required result and the answer into fw_call_answer). */
static fw_err_t ask_llm(fw_call_t *call)
{
    const fw_answer_t *a = fw_call_answer(call);
    if (a == NULL) {
        fw_jw_t *p;
        fw_err_t err = fw_call_ask(call, "sampling/createMessage", &p);
        if (err != FW_OK) return err;
        fw_jw_kv_i64(p, "maxTokens", 5);
        return FW_OK;
    }
    int32_t model = fw_json_obj_get(a->doc, (uint32_t)a->result, "model");
    char text[32];
    ck_assert_int_ge(fw_json_str_decode(a->doc, (uint32_t)model, text, sizeof text), 0);
    fw_jw_kv_str(fw_call_result(call), "model", text);
    return FW_OK;
}

static const fw_tool_t tool_llm = {.name = "ask_llm", .description = "asks the LLM",
                                   .handler = ask_llm};

/* An ordinary (wrapped) tool that asks too: the result must not be wrapped. */
static const fw_tool_t tool_ask_wrapped = {
    .name = "ask_wrapped", .description = "asks for a name, wrapped", .handler = ask_name};

static void setup(void)
{
    mcp_setup(true);
    fw_session_init(&sess, &dev);
    ck_assert_int_eq(fw_device_add_tool(&dev, &tool_ask), FW_OK);
    ck_assert_int_eq(fw_device_add_tool(&dev, &tool_ask_wrapped), FW_OK);
    ck_assert_int_eq(fw_device_add_tool(&dev, &tool_llm), FW_OK);
}

/* ---------------------------------------------------------------- _meta and methods */

START_TEST(test_discover_without_initialize)
{
    json_t *r = result_of("server/discover", "{" META "}");
    ck_assert_str_eq(jstr(r, "resultType"), "complete");
    ck_assert_int_eq(jint(r, "ttlMs"), 0);
    ck_assert_str_eq(jstr(r, "cacheScope"), "private");
    ck_assert_str_eq(jstr(r, "supportedVersions.0"), "2026-07-28");
    ck_assert_str_eq(jstr(r, "supportedVersions.1"), "2025-11-25");
    ck_assert_ptr_nonnull(jpath(r, "capabilities.tools"));
#if FW_WITH_LISTEN
    ck_assert(json_is_true(jpath(r, "capabilities.resources.subscribe"))); /* via listen */
#else
    ck_assert_ptr_null(jpath(r, "capabilities.resources.subscribe"));
#endif
    json_t *info = json_object_get(json_object_get(r, "_meta"),
                                   "io.modelcontextprotocol/serverInfo");
    ck_assert_str_eq(jstr(info, "name"), mcp_test_board.device);
    ck_assert(!sess.initialize_seen); /* the transport's session is left alone */
}
END_TEST

START_TEST(test_results_carry_result_type)
{
    json_t *r = result_of("tools/list", "{" META "}");
    ck_assert_str_eq(jstr(r, "resultType"), "complete");
    ck_assert_int_eq(jint(r, "ttlMs"), 0);
    r = result_of("prompts/get", "{\"name\":\"board_overview\"," META "}");
    ck_assert_str_eq(jstr(r, "resultType"), "complete");
    ck_assert_ptr_null(json_object_get(r, "ttlMs")); /* a prompt's messages are not cacheable */
    /* the same methods without _meta: the stateful revisions' results, unchanged */
    r = result_of("tools/list", NULL);
    ck_assert_ptr_null(json_object_get(r, "resultType"));
}
END_TEST

START_TEST(test_removed_methods_are_not_found)
{
    static const char *const removed[] = {"initialize", "ping", "logging/setLevel",
                                          "resources/subscribe", "resources/unsubscribe"};
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        json_t *e = error_of(removed[i], "{" META "}", FW_RPC_METHOD_NOT_FOUND);
        ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "2026-07-28"));
    }
    error_of("no/such", "{" META "}", FW_RPC_METHOD_NOT_FOUND);
    result_of("ping", NULL); /* still there for a 2025 client */
}
END_TEST

START_TEST(test_meta_is_checked)
{
    json_t *e = error_of("tools/list", "{" META_NO_CAPS "}}", FW_RPC_INVALID_PARAMS);
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "clientCapabilities"));
    e = error_of("tools/list",
                 "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2099-01-01\","
                 "\"io.modelcontextprotocol/clientCapabilities\":{}}}",
                 FW_RPC_UNSUPPORTED_VERSION);
    ck_assert_str_eq(jstr(e, "data.requested"), "2099-01-01");
    ck_assert_str_eq(jstr(e, "data.supported.0"), "2026-07-28");
    /* a stateful revision named in _meta is served as before (no resultType) */
    json_t *r = result_of("tools/list", "{\"_meta\":{\"io.modelcontextprotocol/"
                                        "protocolVersion\":\"2025-11-25\"}}");
    ck_assert_ptr_null(json_object_get(r, "resultType"));
    e = error_of("tools/list",
                 "{" META_NO_CAPS ",\"io.modelcontextprotocol/clientCapabilities\":{},"
                 "\"io.modelcontextprotocol/logLevel\":\"loud\"}}",
                 FW_RPC_INVALID_PARAMS);
}
END_TEST

/* ---------------------------------------------------------------- input required */

/* The requestState of an input-required result of tool (FW_TOOL_MCP_RESULT or not). */
static const char *first_round(const char *tool)
{
    char params[512];
    snprintf(params, sizeof params, "{\"name\":\"%s\",\"_meta\":{\"io.modelcontextprotocol/"
             "protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
             "{\"elicitation\":{}}}}", tool);
    json_t *r = result_of("tools/call", params);
    ck_assert_str_eq(jstr(r, "resultType"), "input_required");
    ck_assert_str_eq(jstr(r, "inputRequests.name.method"), "elicitation/create");
    ck_assert_ptr_null(json_object_get(r, "content"));
    return jstr(r, "requestState");
}

static json_t *second_round(const char *tool, const char *state, const char *answer)
{
    char params[1024];
    snprintf(params, sizeof params,
             "{\"name\":\"%s\",\"inputResponses\":{\"name\":%s},\"requestState\":\"%s\","
             "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}",
             tool, answer, state);
    return request("tools/call", params);
}

START_TEST(test_input_required_round_trip)
{
    const char *tools[] = {"ask_name", "ask_wrapped"};
    for (size_t i = 0; i < 2; i++) {
        const char *state = first_round(tools[i]);
        ck_assert_ptr_nonnull(strstr(state, "round-1."));
        ck_assert_uint_eq(hal.entropy_calls, 1); /* one key a boot, drawn on first use */
        json_t *r = json_object_get(second_round(tools[i], state, "{\"action\":\"accept\"}"),
                                    "result");
        ck_assert_msg(r != NULL, "%s", out.buf);
        ck_assert_str_eq(jstr(r, "resultType"), "complete");
        if (i == 0) ck_assert_str_eq(jstr(r, "state"), "round-1");
    }
}
END_TEST

START_TEST(test_tampered_or_foreign_state_is_refused)
{
    char state[256], bad[300];
    snprintf(state, sizeof state, "%s", first_round("ask_name"));
    snprintf(bad, sizeof bad, "%s", state);
    bad[0] = bad[0] == 'r' ? 'R' : 'r'; /* the payload changed */
    json_t *e = json_object_get(second_round("ask_name", bad, "{}"), "error");
    ck_assert_msg(e != NULL, "accepted %s: %s", bad, out.buf);
    ck_assert_int_eq(jint(e, "code"), FW_RPC_INVALID_PARAMS);
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "integrity"));
    snprintf(bad, sizeof bad, "%s-TAMPERED", state);
    e = json_object_get(second_round("ask_name", bad, "{}"), "error");
    ck_assert_msg(e != NULL, "accepted %s: %s", bad, out.buf);
    ck_assert_int_eq(jint(e, "code"), FW_RPC_INVALID_PARAMS);
    /* issued for another tool: the MAC binds the name */
    e = json_object_get(second_round("ask_wrapped", state, "{}"), "error");
    ck_assert_msg(e != NULL, "accepted for another tool: %s", out.buf);
    ck_assert_int_eq(jint(e, "code"), FW_RPC_INVALID_PARAMS);
    /* a restart draws a new key: the old state no longer verifies (the mock's entropy
       differs from one draw to the next) */
    ck_assert_int_eq(fw_device_init(&dev, &mcp_test_board, &mock_hal_api, &hal), FW_OK);
    ck_assert_int_eq(fw_device_add_tool(&dev, &tool_ask), FW_OK);
    e = json_object_get(second_round("ask_name", state, "{}"), "error");
    ck_assert_msg(e != NULL, "accepted after a restart: %s", out.buf);
    ck_assert_int_eq(jint(e, "code"), FW_RPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_input_responses_must_be_objects)
{
    json_t *e = error_of("tools/call",
                         "{\"name\":\"ask_name\",\"inputResponses\":{\"name\":12}," META "}",
                         FW_RPC_INVALID_PARAMS);
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "inputResponses.name"));
    error_of("tools/call", "{\"name\":\"ask_name\",\"inputResponses\":null," META "}",
             FW_RPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_missing_client_capability)
{
    json_t *e = error_of("tools/call", "{\"name\":\"ask_name\"," META_SAMPLING "}",
                         FW_RPC_MISSING_CLIENT_CAP);
    ck_assert(json_is_object(jpath(e, "data.requiredCapabilities.elicitation")));
    ck_assert_ptr_null(jpath(e, "data.requiredCapabilities.sampling"));
}
END_TEST

START_TEST(test_fw_call_ask_becomes_input_required)
{
    json_t *r = result_of("tools/call", "{\"name\":\"ask_llm\"," META_SAMPLING "}");
    ck_assert_str_eq(jstr(r, "resultType"), "input_required");
    ck_assert_str_eq(jstr(r, "inputRequests.ask.method"), "sampling/createMessage");
    ck_assert_int_eq(jint(r, "inputRequests.ask.params.maxTokens"), 5);
    char params[512];
    snprintf(params, sizeof params,
             "{\"name\":\"ask_llm\",\"requestState\":\"%s\",\"inputResponses\":{\"ask\":"
             "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"x\"},"
             "\"model\":\"m1\"}}," META_SAMPLING "}",
             jstr(r, "requestState"));
    r = result_of("tools/call", params);
    ck_assert_str_eq(jstr(r, "resultType"), "complete");
    ck_assert_ptr_nonnull(strstr(jstr(r, "content.0.text"), "\"model\":\"m1\""));
    /* without the sampling capability: -32021, nothing asked */
    json_t *e = error_of("tools/call", "{\"name\":\"ask_llm\"," META "}",
                         FW_RPC_MISSING_CLIENT_CAP);
    ck_assert(json_is_object(jpath(e, "data.requiredCapabilities.sampling")));
    ck_assert_ptr_null(sess.ask_tool); /* no 2025-style wait was set up */
}
END_TEST

#if FW_WITH_LISTEN
/* ---------------------------------------------------------------- subscriptions/listen */

/* The notifications fw_device_drain writes for session s (its own and its listen streams'). */
static size_t drain_of(fw_session_t *s)
{
    mcap_reset(&out);
    size_t n = fw_device_drain(&dev, s, mcap_sink(&out));
    ck_assert_uint_eq(n, out.count);
    return n;
}

static size_t listen_drain(int slot)
{
    mcap_reset(&out);
    size_t n = fw_device_listen_drain(&dev, slot, mcap_sink(&out));
    ck_assert_uint_eq(n, out.count);
    return n;
}

/* _meta["io.modelcontextprotocol/subscriptionId"] of notification n (jpath splits at dots). */
static json_t *sub_id_of(json_t *n)
{
    json_t *v = json_object_get(jpath(n, "params._meta"), "io.modelcontextprotocol/subscriptionId");
    ck_assert_ptr_nonnull(v);
    return v;
}

static const char *sub_id(json_t *n)
{
    const char *v = json_string_value(sub_id_of(n));
    ck_assert_ptr_nonnull(v);
    return v;
}

#define META_WARN                                                                                  \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                       \
    "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/logLevel\":"        \
    "\"warning\"}"

/* Sends subscriptions/listen with id (raw JSON) and filter in session s: acknowledged, no
   response; returns the acknowledgement. */
static json_t *listen_in(fw_session_t *s, const char *id, const char *filter)
{
    char msg[1024];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"subscriptions/listen\","
             "\"params\":{\"notifications\":%s," META_WARN "}}",
             id, filter);
    send_in(s, msg);
    ck_assert_msg(!answered, "a listen was answered: %s", out.buf); /* the stream stays open */
    ck_assert_uint_eq(out.count, 1);
    json_t *ack = msg_at(0);
    ck_assert_str_eq(jstr(ack, "method"), "notifications/subscriptions/acknowledged");
    return ack;
}

static void cancel_in(fw_session_t *s, const char *id)
{
    char msg[256];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
             "\"params\":{\"requestId\":%s," META "}}",
             id);
    send_in(s, msg);
    ck_assert(!answered);
    ck_assert_uint_eq(out.count, 0);
}

START_TEST(test_listen_registers_notifies_and_cancels)
{
    json_t *ack = listen_in(&sess, "\"L1\"",
                            "{\"resourceSubscriptions\":[\"pin://led\",\"pin://nosuch\"],"
                            "\"toolsListChanged\":true,\"promptsListChanged\":false}");
    /* the honoured subset: the known URI, the list asked for; false and unknown left out */
    ck_assert_str_eq(jstr(ack, "params.notifications.resourceSubscriptions.0"), "pin://led");
    ck_assert_ptr_null(jpath(ack, "params.notifications.resourceSubscriptions.1"));
    ck_assert(json_is_true(jpath(ack, "params.notifications.toolsListChanged")));
    ck_assert_ptr_null(jpath(ack, "params.notifications.promptsListChanged"));
    ck_assert_ptr_null(jpath(ack, "params.notifications.resourcesListChanged"));
    ck_assert_str_eq(sub_id(ack), "L1");
    ck_assert_uint_eq(drain_of(&sess), 0);

    /* a pin change: notifications/resources/updated on the session that listens, tagged */
    result_of("tools/call", "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":\"led\","
                            "\"value\":true}," META "}");
    ck_assert_uint_eq(drain_of(&sess), 1);
    json_t *n = msg_at(0);
    ck_assert_str_eq(jstr(n, "method"), "notifications/resources/updated");
    ck_assert_str_eq(jstr(n, "params.uri"), "pin://led");
    ck_assert_str_eq(sub_id(n), "L1");
    ck_assert_uint_eq(drain_of(&sess), 0);

    /* log messages at or above the listen request's logLevel */
    fw_log(&dev, FW_LOG_INFO, "below");
    fw_log(&dev, FW_LOG_ERROR, "above");
    ck_assert_uint_eq(drain_of(&sess), 1);
    n = msg_at(0);
    ck_assert_str_eq(jstr(n, "method"), "notifications/message");
    ck_assert_str_eq(jstr(n, "params.level"), "error");
    ck_assert_str_eq(jstr(n, "params.data"), "above");
    ck_assert_str_eq(sub_id(n), "L1");

    /* another id's cancellation changes nothing; the listen request's ends the stream */
    cancel_in(&sess, "\"L2\"");
    fw_log(&dev, FW_LOG_ERROR, "still");
    ck_assert_uint_eq(drain_of(&sess), 1);
    cancel_in(&sess, "\"L1\"");
    fw_log(&dev, FW_LOG_ERROR, "after");
    ck_assert_uint_eq(drain_of(&sess), 0);
}
END_TEST

START_TEST(test_listen_cancel_only_from_the_same_client)
{
    fw_session_t a, b;
    fw_session_init(&a, &dev);
    fw_session_init(&b, &dev);
    listen_in(&a, "7", "{\"resourceSubscriptions\":[\"pin://led\"]}");
    listen_in(&b, "7", "{\"resourceSubscriptions\":[\"pin://led\"]}");
    cancel_in(&b, "7"); /* b's stream ends; a's, with the same id, does not */
    result_of("tools/call", "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":\"led\","
                            "\"value\":true}," META "}");
    ck_assert_uint_eq(drain_of(&b), 0);
    ck_assert_uint_eq(drain_of(&a), 1);
    ck_assert_str_eq(jstr(msg_at(0), "params.uri"), "pin://led");
    ck_assert_int_eq(json_integer_value(sub_id_of(msg_at(0))), 7);
    cancel_in(&sess, "7"); /* a third client's cancellation: a's stream goes on */
    result_of("tools/call", "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":\"led\","
                            "\"value\":false}," META "}");
    ck_assert_uint_eq(drain_of(&a), 1);
    cancel_in(&a, "7");
    result_of("tools/call", "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":\"led\","
                            "\"value\":true}," META "}");
    ck_assert_uint_eq(drain_of(&a), 0);
}
END_TEST

START_TEST(test_listen_slots_are_bounded_and_freed_with_their_client)
{
    fw_session_t other;
    fw_session_init(&other, &dev);
    for (int k = 0; k < FW_MAX_LISTENERS; k++) listen_in(&sess, "8", "{}");
    /* all taken: -32603, as the SDKs answer it */
    json_t *err = error_of("subscriptions/listen", "{\"notifications\":{}," META "}",
                           FW_RPC_INTERNAL_ERROR);
    ck_assert_msg(strstr(jstr(err, "message"), "Subscription limit reached") != NULL, "%s",
                  out.buf);
    fw_device_listen_release(&dev, &other); /* not its streams: nothing frees */
    error_of("subscriptions/listen", "{\"notifications\":{}," META "}", FW_RPC_INTERNAL_ERROR);
    fw_device_listen_release(&dev, &sess); /* sess's client went away */
    for (int k = 0; k < FW_MAX_LISTENERS; k++) listen_in(&other, "9", "{}");
    fw_log(&dev, FW_LOG_ERROR, "to the new client");
    ck_assert_uint_eq(drain_of(&sess), 0);
    ck_assert_uint_eq(drain_of(&other), FW_MAX_LISTENERS);
}
END_TEST

START_TEST(test_listen_take_hands_the_stream_to_the_transport)
{
    fw_session_t req; /* an HTTP POST's session, for that request only */
    fw_session_init(&req, &dev);
    ck_assert_int_eq(fw_device_listen_take(&dev, &req), -1); /* nothing opened yet */
    listen_in(&req, "\"h\"", "{\"resourceSubscriptions\":[\"pin://led\"]}");
    int slot = fw_device_listen_take(&dev, &req);
    ck_assert_int_ge(slot, 0);
    ck_assert_int_eq(fw_device_listen_take(&dev, &req), -1);
    ck_assert(fw_device_listen_open(&dev, slot));
    result_of("tools/call", "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":\"led\","
                            "\"value\":true}," META "}");
    ck_assert_uint_eq(drain_of(&req), 0); /* no session drains it now */
    ck_assert_uint_eq(listen_drain(slot), 1);
    ck_assert_str_eq(sub_id(msg_at(0)), "h");
    cancel_in(&req, "\"h\"");
    fw_device_listen_release(&dev, &req);
    ck_assert(fw_device_listen_open(&dev, slot)); /* only the transport ends it */
    fw_device_listen_close(&dev, slot);
    ck_assert(!fw_device_listen_open(&dev, slot));
    ck_assert_uint_eq(listen_drain(slot), 0);
}
END_TEST

static fw_err_t added_tool(fw_call_t *call)
{
    fw_jw_kv_bool(fw_call_result(call), "ok", true);
    return FW_OK;
}

static const fw_tool_t tool_added = {.name = "added_later", .description = "added at run time",
                                     .handler = added_tool};

static fw_err_t added_prompt(fw_call_t *call, const fw_prompt_t *p, const char *const *argv)
{
    (void)p, (void)argv;
    return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s", "not read in this test");
}

static const fw_prompt_t prompt_added = {"added_prompt", NULL, "added at run time", NULL, 0,
                                         added_prompt, NULL};

START_TEST(test_listen_list_changes_follow_the_filter)
{
    fw_session_t a, b;
    fw_session_init(&a, &dev);
    fw_session_init(&b, &dev);
    json_t *ack = listen_in(&a, "1", "{\"toolsListChanged\":true}");
    ck_assert(json_is_true(jpath(ack, "params.notifications.toolsListChanged")));
    ack = listen_in(&b, "2", "{\"promptsListChanged\":true,\"toolsListChanged\":false}");
    ck_assert(json_is_true(jpath(ack, "params.notifications.promptsListChanged")));
    ck_assert_ptr_null(jpath(ack, "params.notifications.toolsListChanged"));
    ck_assert_uint_eq(drain_of(&a) + drain_of(&b), 0);

    ck_assert_int_eq(fw_device_add_tool(&dev, &tool_added), FW_OK);
    ck_assert_uint_eq(drain_of(&b), 0); /* it asked for prompts only */
    ck_assert_uint_eq(drain_of(&a), 1);
    json_t *n = msg_at(0);
    ck_assert_str_eq(jstr(n, "method"), "notifications/tools/list_changed");
    ck_assert_int_eq(json_integer_value(sub_id_of(n)), 1);
    ck_assert_uint_eq(drain_of(&a), 0); /* once per change */

    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt_added), FW_OK);
    ck_assert_uint_eq(drain_of(&a), 0);
    ck_assert_uint_eq(drain_of(&b), 1);
    ck_assert_str_eq(jstr(msg_at(0), "method"), "notifications/prompts/list_changed");

    /* server/discover announces what a listen stream can carry */
    json_t *r = result_of("server/discover", "{" META "}");
    ck_assert(json_is_true(jpath(r, "capabilities.tools.listChanged")));
    ck_assert(json_is_true(jpath(r, "capabilities.prompts.listChanged")));
    ck_assert(json_is_true(jpath(r, "capabilities.resources.listChanged")));
    ck_assert(json_is_true(jpath(r, "capabilities.resources.subscribe")));
}
END_TEST

START_TEST(test_listen_is_checked)
{
    error_of("subscriptions/listen", "{" META "}", FW_RPC_INVALID_PARAMS); /* no filter */
    error_of("subscriptions/listen", "{\"notifications\":[]," META "}", FW_RPC_INVALID_PARAMS);
    error_of("subscriptions/listen",
             "{\"notifications\":{\"resourceSubscriptions\":\"pin://led\"}," META "}",
             FW_RPC_INVALID_PARAMS);
    error_of("subscriptions/listen",
             "{\"notifications\":{\"resourceSubscriptions\":[\"pin://led\",3]}," META "}",
             FW_RPC_INVALID_PARAMS);
    error_of("subscriptions/listen", "{\"notifications\":{\"toolsListChanged\":1}," META "}",
             FW_RPC_INVALID_PARAMS);
    error_of("subscriptions/listen", "{\"notifications\":{}}", FW_RPC_METHOD_NOT_FOUND);
    /* a refused listen takes no slot */
    for (int k = 0; k < FW_MAX_LISTENERS; k++) listen_in(&sess, "5", "{}");
}
END_TEST
#endif

START_TEST(test_input_required_only_when_stateless)
{
    result_of("initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
                            "{\"elicitation\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":"
                            "\"1\"}}");
    json_t *r = result_of("tools/call", "{\"name\":\"ask_name\"}");
    ck_assert(json_is_true(json_object_get(r, "isError")));
    ck_assert_ptr_nonnull(strstr(jstr(r, "content.0.text"), "not a stateless request"));
    ck_assert_ptr_null(json_object_get(r, "resultType"));
    ck_assert_uint_eq(hal.entropy_calls, 0);
}
END_TEST

static Suite *mcp_stateless_suite(void)
{
    Suite *s = suite_create("mcp_stateless");
    TCase *t;
#if FW_SPEED_PATHS >= 2
    t = tcase_create("params");
    tcase_add_test(t, test_members_one_pass_matches_member);
    suite_add_tcase(s, t);
#endif
    t = tcase_create("siphash");
    tcase_add_test(t, test_siphash_reference_vectors);
    tcase_add_test(t, test_siphash_incremental_equals_one_pass);
    suite_add_tcase(s, t);
    t = tcase_create("stateless");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_discover_without_initialize);
    tcase_add_test(t, test_results_carry_result_type);
    tcase_add_test(t, test_removed_methods_are_not_found);
    tcase_add_test(t, test_meta_is_checked);
    tcase_add_test(t, test_input_required_round_trip);
    tcase_add_test(t, test_tampered_or_foreign_state_is_refused);
    tcase_add_test(t, test_input_responses_must_be_objects);
    tcase_add_test(t, test_missing_client_capability);
    tcase_add_test(t, test_input_required_only_when_stateless);
    tcase_add_test(t, test_fw_call_ask_becomes_input_required);
#if FW_WITH_LISTEN
    tcase_add_test(t, test_listen_registers_notifies_and_cancels);
    tcase_add_test(t, test_listen_cancel_only_from_the_same_client);
    tcase_add_test(t, test_listen_slots_are_bounded_and_freed_with_their_client);
    tcase_add_test(t, test_listen_take_hands_the_stream_to_the_transport);
    tcase_add_test(t, test_listen_list_changes_follow_the_filter);
    tcase_add_test(t, test_listen_is_checked);
#endif
    suite_add_tcase(s, t);
    return s;
}

#else

START_TEST(test_feature_is_off)
{
    static const fw_board_t b = {.device = "no-mcp", .version = "1", .platform = "mock"};
    ck_assert(!FW_WITH_MCP);
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    ck_assert_uint_eq(hal.entropy_calls, 0); /* no key is drawn without MCP */
}
END_TEST

static Suite *mcp_stateless_suite(void)
{
    Suite *s = suite_create("mcp_stateless");
    TCase *t = tcase_create("feature_off");
    tcase_add_test(t, test_feature_is_off);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(mcp_stateless_suite)
