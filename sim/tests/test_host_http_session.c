/* test_host_http_session.c: the HTTP transport's sessions: ids, the table's limits and idle
   expiry, the queue of server-initiated messages, the GET stream and the drain. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http_session.h"
#include "sim.h"
#include "test_util.h"

static host_sessions_t table;

/* A listed session (reserve, new, publish); the caller's reference is dropped. */
static host_session_t *listed(void)
{
    ck_assert(host_sessions_reserve(&table));
    host_session_t *s = host_session_new();
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_gt(host_sessions_publish(&table, s), 0);
    host_session_release(&table, s);
    return s;
}

/* Reads the stream until buf holds `want` or it ends; returns what was read (NUL-terminated). */
static size_t read_until(host_stream_t *st, char *buf, size_t cap, const char *want)
{
    size_t len = 0;
    buf[0] = 0;
    while (!strstr(buf, want)) {
        ssize_t n = host_stream_read(st, buf + len, cap - 1 - len);
        if (n < 0) break;
        ck_assert_int_gt(n, 0);
        len += (size_t)n;
        buf[len] = 0;
    }
    return len;
}

START_TEST(ids_are_32_lowercase_hex_digits_and_differ)
{
    host_sessions_init(&table, 4, 60000);
    host_session_t *a = listed(), *b = listed();
    ck_assert_uint_eq(strlen(a->id), 32);
    ck_assert_uint_eq(strspn(a->id, "0123456789abcdef"), 32);
    ck_assert_str_ne(a->id, b->id);
    char tag[16];
    host_session_tag(a, tag);
    ck_assert_uint_eq(strlen(tag), 11); /* 8 digits and "...": never the whole credential */
    ck_assert_int_eq(strncmp(tag, a->id, 8), 0);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(find_needs_the_whole_id_of_a_listed_session)
{
    host_sessions_init(&table, 4, 60000);
    host_session_t *a = listed();
    host_session_t *f = host_sessions_find(&table, a->id);
    ck_assert_ptr_eq(f, a);
    host_session_release(&table, f);
    char wrong[40];
    snprintf(wrong, sizeof wrong, "%s", a->id);
    wrong[31] = wrong[31] == '0' ? '1' : '0';
    ck_assert_ptr_null(host_sessions_find(&table, wrong));
    wrong[31] = 0;
    ck_assert_ptr_null(host_sessions_find(&table, wrong)); /* a prefix is not enough */
    ck_assert_ptr_null(host_sessions_find(&table, NULL));
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(reservations_count_against_the_limit)
{
    host_sessions_init(&table, 2, 60000);
    ck_assert(host_sessions_reserve(&table));
    ck_assert(host_sessions_reserve(&table));
    ck_assert(!host_sessions_reserve(&table)); /* two initializes in flight fill it */
    host_sessions_unreserve(&table);
    host_session_t *s = host_session_new();
    ck_assert_uint_eq(host_sessions_publish(&table, s), 1); /* uses the reservation left */
    host_session_release(&table, s);
    ck_assert(host_sessions_reserve(&table)); /* one listed, one in flight: full */
    ck_assert(!host_sessions_reserve(&table));
    host_sessions_unreserve(&table);
    host_sessions_destroy(&table);
}
END_TEST

/* A listed session of owner, idle (the caller's reference dropped). */
static host_session_t *owned(const char *owner)
{
    ck_assert_int_eq(host_sessions_reserve_for(&table, owner), HOST_RESERVED);
    host_session_t *s = host_session_new();
    snprintf(s->owner, sizeof s->owner, "%s", owner);
    ck_assert_uint_gt(host_sessions_publish(&table, s), 0);
    host_session_release(&table, s);
    return s;
}

START_TEST(the_lru_idle_session_makes_room_and_owners_are_capped)
{
    host_sessions_init(&table, 3, 60000);
    table.per_client = 2;
    char a[40], b[40], c[40];
    snprintf(a, sizeof a, "%s", owned("10.0.0.1")->id);
    usleep(2000);
    snprintf(b, sizeof b, "%s", owned("10.0.0.1")->id);
    usleep(2000);
    snprintf(c, sizeof c, "%s", owned("10.0.0.2")->id);
    /* 10.0.0.1 at its cap: its oldest (a) ends, 10.0.0.2's c stays */
    host_session_t *busy = host_sessions_find(&table, b); /* a request in flight on b */
    char d[40];
    snprintf(d, sizeof d, "%s", owned("10.0.0.1")->id);
    host_session_t *f = host_sessions_find(&table, a);
    ck_assert_ptr_null(f);
    f = host_sessions_find(&table, c);
    ck_assert_ptr_nonnull(f);
    host_session_release(&table, f);
    /* both of 10.0.0.1's sessions busy: refused for the client, not the table */
    host_session_t *busy_d = host_sessions_find(&table, d);
    ck_assert_int_eq(host_sessions_reserve_for(&table, "10.0.0.1"), HOST_RESERVE_CLIENT_CAP);
    /* a new owner at the full table: the LRU idle session of anyone (c) ends */
    ck_assert_int_eq(host_sessions_reserve_for(&table, "10.0.0.3"), HOST_RESERVED);
    ck_assert_ptr_null(host_sessions_find(&table, c));
    host_sessions_unreserve(&table);
    /* every session busy: full */
    ck_assert_int_eq(host_sessions_reserve_for(&table, "10.0.0.3"), HOST_RESERVED); /* 2 of 3 */
    ck_assert_int_eq(host_sessions_reserve_for(&table, "10.0.0.4"), HOST_RESERVE_FULL);
    host_sessions_unreserve(&table);
    host_session_release(&table, busy);
    host_session_release(&table, busy_d);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(an_ended_session_is_not_found_and_frees_its_place)
{
    host_sessions_init(&table, 1, 60000);
    host_session_t *a = listed();
    char id[40];
    snprintf(id, sizeof id, "%s", a->id);
    ck_assert(!host_sessions_reserve(&table));
    host_session_t *f = host_sessions_find(&table, id);
    ck_assert(host_sessions_end(&table, f));
    ck_assert(!host_sessions_end(&table, f)); /* once */
    host_session_release(&table, f);          /* frees it */
    ck_assert_ptr_null(host_sessions_find(&table, id));
    ck_assert(host_sessions_reserve(&table));
    host_sessions_unreserve(&table);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(an_idle_session_expires_unless_its_stream_is_open)
{
    host_sessions_init(&table, 2, 50); /* 50 ms */
    host_session_t *a = listed(), *b = listed();
    char id_a[40];
    snprintf(id_a, sizeof id_a, "%s", a->id);
    host_stream_t *st = host_stream_open(&table, b, -1);
    ck_assert_ptr_nonnull(st);
    usleep(120 * 1000);
    ck_assert_ptr_null(host_sessions_find(&table, id_a)); /* expired */
    host_session_t *f = host_sessions_find(&table, b->id);
    ck_assert_ptr_eq(f, b); /* a client listening is not idle */
    host_session_release(&table, f);
    host_stream_close(st);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(a_request_in_flight_keeps_a_session_alive)
{
    host_sessions_init(&table, 1, 50);
    host_session_t *a = listed();
    host_session_t *f = host_sessions_find(&table, a->id); /* a long request holds it */
    usleep(120 * 1000);
    ck_assert(!host_sessions_reserve(&table)); /* reaping skips it: still listed */
    host_session_release(&table, f);           /* the request ended: activity now */
    f = host_sessions_find(&table, a->id);
    ck_assert_ptr_eq(f, a);
    host_session_release(&table, f);
    host_sessions_destroy(&table);
}
END_TEST

/* The table holds its listed sessions packed (an ended or expired one's place goes to the
   last): whichever go, in whatever order, the others are found, each expiry is counted once,
   and every place comes back. */
START_TEST(sessions_leaving_in_any_order_leave_the_others_findable)
{
    enum { N = 8 };
    host_sessions_init(&table, N, 50); /* 50 ms */
    host_session_t *s[N];
    char id[N][40];
    for (int i = 0; i < N; i++) {
        s[i] = listed();
        snprintf(id[i], sizeof id[i], "%s", s[i]->id);
    }
    ck_assert(!host_sessions_reserve(&table));
    static const int ended[] = {3, 7, 0}; /* a middle one, the last, the first */
    for (size_t k = 0; k < sizeof ended / sizeof ended[0]; k++) {
        host_session_t *f = host_sessions_find(&table, id[ended[k]]);
        ck_assert_ptr_eq(f, s[ended[k]]);
        ck_assert(host_sessions_end(&table, f));
        host_session_release(&table, f);
    }
    ck_assert_uint_eq(table.count, N - 3);
    for (int i = 0; i < N; i++) {
        bool gone = i == 3 || i == 7 || i == 0;
        host_session_t *f = host_sessions_find(&table, id[i]);
        ck_assert_ptr_eq(f, gone ? NULL : s[i]);
        if (f) host_session_release(&table, f);
    }
    /* 1, 4 and 6 stay busy (a request each) while the others expire in one walk */
    host_session_t *busy[] = {host_sessions_find(&table, id[1]), host_sessions_find(&table, id[4]),
                              host_sessions_find(&table, id[6])};
    usleep(120 * 1000);
    ck_assert(host_sessions_reserve(&table)); /* reaps 2 and 5 */
    host_sessions_unreserve(&table);
    ck_assert_uint_eq(table.count, 3);
    ck_assert_ptr_null(host_sessions_find(&table, id[2]));
    ck_assert_ptr_null(host_sessions_find(&table, id[5]));
    for (int k = 0; k < 3; k++) host_session_release(&table, busy[k]);
    for (int i = 0; i < N - 3; i++) ck_assert(host_sessions_reserve(&table));
    ck_assert(!host_sessions_reserve(&table));
    host_sessions_destroy(&table);
}
END_TEST

/* The index by id with a full table of 1,024 (buckets shared by several ids): every listed
   session is found by its whole id through any order of ends and relistings, an ended one never,
   and an id that differs from a listed one in any single character is not found. */
START_TEST(a_thousand_sessions_are_each_found_by_their_own_id)
{
    enum { N = 1024 };
    host_sessions_init(&table, N, 60000);
    static host_session_t *s[N];
    static char id[N][40];
    for (int i = 0; i < N; i++) {
        s[i] = listed();
        snprintf(id[i], sizeof id[i], "%s", s[i]->id);
    }
    ck_assert_uint_eq(table.count, N);
    unsigned seed = 12345;
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < N / 2; i++) { /* ends about 40 %, in a scrambled order */
            seed = seed * 1103515245u + 12345u;
            int k = (int)((seed >> 16) % N);
            if (!s[k]) continue;
            host_session_t *f = host_sessions_find(&table, id[k]);
            ck_assert_ptr_eq(f, s[k]);
            ck_assert(host_sessions_end(&table, f));
            host_session_release(&table, f);
            s[k] = NULL;
        }
        for (int i = 0; i < N; i++) {
            host_session_t *f = host_sessions_find(&table, id[i]);
            ck_assert_ptr_eq(f, s[i]);
            if (f) host_session_release(&table, f);
        }
        for (int i = 0; i < N; i++) { /* the ended ones' places go to new sessions */
            if (s[i]) continue;
            s[i] = listed();
            snprintf(id[i], sizeof id[i], "%s", s[i]->id);
        }
        ck_assert_uint_eq(table.count, N);
    }
    for (int i = 0; i < N; i += 97) {
        for (int at = 0; at < 32; at++) {
            char wrong[40];
            memcpy(wrong, id[i], sizeof wrong);
            wrong[at] = wrong[at] == 'f' ? '0' : 'f';
            ck_assert_ptr_null(host_sessions_find(&table, wrong));
        }
    }
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(one_stream_per_session)
{
    host_sessions_init(&table, 1, 60000);
    host_session_t *a = listed();
    host_stream_t *st = host_stream_open(&table, a, -1);
    ck_assert_ptr_nonnull(st);
    ck_assert_ptr_null(host_stream_open(&table, a, -1));
    host_stream_close(st);
    st = host_stream_open(&table, a, -1); /* once closed, another may open */
    ck_assert_ptr_nonnull(st);
    host_stream_close(st);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(the_stream_sends_a_greeting_then_queued_events_then_ends_with_the_session)
{
    static char buf[4096];
    host_sessions_init(&table, 1, 60000);
    host_session_t *a = listed();
    host_session_push(&table, a, "{\"a\":1}", 7);
    host_stream_t *st = host_stream_open(&table, a, -1);
    read_until(st, buf, sizeof buf, "\n\n");
    ck_assert_str_eq(buf, ": mcpsim event stream\n\n");
    read_until(st, buf, sizeof buf, "\n\n");
    ck_assert_str_eq(buf, "event: message\ndata: {\"a\":1}\n\n");
    host_session_push(&table, a, "{\"b\":2}", 7);
    host_session_t *f = host_sessions_find(&table, a->id);
    host_sessions_end(&table, f); /* what is queued is still sent, then the stream ends */
    host_session_release(&table, f);
    read_until(st, buf, sizeof buf, "\n\n");
    ck_assert_str_eq(buf, "event: message\ndata: {\"b\":2}\n\n");
    ck_assert_int_eq(host_stream_read(st, buf, sizeof buf), -1);
    host_stream_close(st);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(small_reads_take_the_stream_in_pieces)
{
    static char buf[256];
    host_sessions_init(&table, 1, 60000);
    host_session_t *a = listed();
    host_stream_t *st = host_stream_open(&table, a, -1);
    host_session_push(&table, a, "{\"x\":true}", 10);
    size_t len = 0;
    while (len < 23 + 33) { /* the greeting, then the event, 5 bytes at a time */
        ssize_t n = host_stream_read(st, buf + len, 5);
        ck_assert_int_gt(n, 0);
        ck_assert_int_le(n, 5);
        len += (size_t)n;
    }
    buf[len] = 0;
    ck_assert_str_eq(buf, ": mcpsim event stream\n\nevent: message\ndata: {\"x\":true}\n\n");
    host_stream_close(st);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(stopping_ends_every_stream)
{
    static char buf[256];
    host_sessions_init(&table, 1, 60000);
    host_session_t *a = listed();
    host_stream_t *st = host_stream_open(&table, a, -1);
    read_until(st, buf, sizeof buf, "\n\n");
    host_sessions_stop(&table);
    ck_assert_int_eq(host_stream_read(st, buf, sizeof buf), -1);
    host_stream_close(st);
    ck_assert(!host_sessions_reserve(&table));
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(a_client_hanging_up_ends_its_stream)
{
    static char buf[256];
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    host_sessions_init(&table, 1, 60000);
    host_session_t *a = listed();
    host_stream_t *st = host_stream_open(&table, a, sv[0]);
    read_until(st, buf, sizeof buf, "\n\n");
    ck_assert_int_eq(write(sv[1], "x", 1), 1); /* bytes from the client are no hang-up */
    close(sv[1]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(host_stream_read(st, buf, sizeof buf), -1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_double_lt(waited, 2.0 * HOST_HTTP_HANGUP_MS / 1000.0); /* not the 15 s keep-alive */
    host_stream_close(st);
    st = host_stream_open(&table, a, -1); /* another may open */
    ck_assert_ptr_nonnull(st);
    host_stream_close(st);
    close(sv[0]);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(a_full_queue_drops_new_events_until_it_is_read)
{
    static char big[8192], buf[1 << 16];
    memset(big, 'x', sizeof big);
    host_sessions_init(&table, 1, 60000);
    host_session_t *a = listed();
    for (int i = 0; i < 40; i++) host_session_push(&table, a, big, sizeof big); /* 320 KiB */
    ck_assert_uint_le(a->queue.len, HOST_HTTP_QUEUE_MAX);
    ck_assert_uint_gt(a->dropped, 0);
    host_stream_t *st = host_stream_open(&table, a, -1);
    while (a->queue.len > 0) ck_assert_int_gt(host_stream_read(st, buf, sizeof buf), 0);
    ck_assert_uint_eq(a->dropped, 0);
    host_session_push(&table, a, "{}", 2); /* room again */
    ck_assert_uint_gt(a->queue.len, 0);
    host_stream_close(st);
    host_sessions_destroy(&table);
}
END_TEST

START_TEST(sse_events_carry_each_line_of_a_message_as_a_data_line)
{
    host_buf_t out = {0};
    host_sse_event(&out, "{\"a\":\r\n1}", 9);
    host_buf_append(&out, "", 1);
    ck_assert_str_eq(out.data, "event: message\ndata: {\"a\":\ndata: 1}\n\n");
    host_buf_free(&out);
}
END_TEST

/* ---------------------------------------------------------------- the drain, on a real device */

static sim_t *sim;

static void sim_start(void)
{
    sim_error_t err;
    memset(&err, 0, sizeof err);
    sim_board_t *board = sim_board_load(MCPSIM_SOURCE_DIR "/sim/boards/esp32-demo.json", &err);
    ck_assert_ptr_nonnull(board);
    sim = sim_create(board, SIM_CLOCK_VIRTUAL, &err);
    ck_assert_ptr_nonnull(sim);
}

static void ignore(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    (void)data;
    (void)len;
}

static void ignore_end(void *ctx)
{
    (void)ctx;
}

/* Runs one MCP request in s (its answer is not looked at). */
static void mcp(host_session_t *s, const char *msg)
{
    fw_msg_sink_t out = {ignore, NULL, ignore_end, NULL};
    ck_assert(fw_device_handle_session(sim_device(sim), &s->fw, msg, strlen(msg), out));
}

static host_session_t *mcp_session(void)
{
    host_session_t *s = listed();
    fw_session_init(&s->fw, sim_device(sim));
    mcp(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
           "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    return s;
}

START_TEST(the_drain_queues_each_sessions_own_notifications)
{
    sim_start();
    host_sessions_init(&table, 2, 60000);
    host_session_t *a = mcp_session(), *b = mcp_session();
    mcp(a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
           "\"params\":{\"uri\":\"pin://led\"}}");
    host_sessions_drain(&table, sim_device(sim));
    ck_assert_uint_eq(a->queue.len, 0);
    mcp(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
           "\"params\":{\"name\":\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":true}}}");
    host_sessions_drain(&table, sim_device(sim));
    host_buf_append(&a->queue, "", 1);
    ck_assert_str_eq(a->queue.data,
                     "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
                     "\"notifications/resources/updated\",\"params\":{\"uri\":\"pin://led\"}}\n\n");
    ck_assert_uint_eq(b->queue.len, 0); /* b subscribed to nothing */
    host_sessions_destroy(&table);
    sim_destroy(sim);
}
END_TEST

static Suite *http_session_suite(void)
{
    Suite *s = suite_create("host_http_session");
    TCase *tc = tcase_create("sessions");
    tcase_add_test(tc, ids_are_32_lowercase_hex_digits_and_differ);
    tcase_add_test(tc, find_needs_the_whole_id_of_a_listed_session);
    tcase_add_test(tc, reservations_count_against_the_limit);
    tcase_add_test(tc, the_lru_idle_session_makes_room_and_owners_are_capped);
    tcase_add_test(tc, an_ended_session_is_not_found_and_frees_its_place);
    tcase_add_test(tc, an_idle_session_expires_unless_its_stream_is_open);
    tcase_add_test(tc, a_request_in_flight_keeps_a_session_alive);
    tcase_add_test(tc, sessions_leaving_in_any_order_leave_the_others_findable);
    tcase_add_test(tc, a_thousand_sessions_are_each_found_by_their_own_id);
    suite_add_tcase(s, tc);
    tc = tcase_create("streams");
    tcase_add_test(tc, one_stream_per_session);
    tcase_add_test(tc, the_stream_sends_a_greeting_then_queued_events_then_ends_with_the_session);
    tcase_add_test(tc, small_reads_take_the_stream_in_pieces);
    tcase_add_test(tc, stopping_ends_every_stream);
    tcase_add_test(tc, a_client_hanging_up_ends_its_stream);
    tcase_add_test(tc, a_full_queue_drops_new_events_until_it_is_read);
    tcase_add_test(tc, sse_events_carry_each_line_of_a_message_as_a_data_line);
    tcase_add_test(tc, the_drain_queues_each_sessions_own_notifications);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(http_session_suite)
