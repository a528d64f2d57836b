/* test_it_eeprom.c: integration: an EEPROM write the device acknowledged survives SIGKILL (the
   AT24C model's backing file is written and synced before the transfer is acknowledged), and a
   backing path that cannot be written stops the start-up with the board file's position. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "it_util.h"
#include "test_util.h"

#define CYCLES 20
#define CHUNK 24 /* bytes per write: crosses a 32-byte page now and then */

static char dir[64], board[128];

/* The greenhouse board with its EEPROM kept in backing (relative to the board file). */
static void write_board(const char *backing)
{
    char src[512];
    snprintf(src, sizeof src, "%s/sim/boards/greenhouse.json", MCPSIM_SOURCE_DIR);
    json_error_t je;
    json_t *b = json_load_file(src, 0, &je);
    ck_assert_msg(b != NULL, "%s: %s", src, je.text);
    json_t *devs = json_object_get(json_object_get(b, "i2c"), "devices");
    json_t *ee = json_array_get(devs, 1);
    ck_assert_str_eq(json_string_value(json_object_get(ee, "model")), "at24c");
    json_object_set_new(ee, "backing_file", json_string(backing));
    snprintf(board, sizeof board, "%s/board.json", dir);
    ck_assert_int_eq(json_dump_file(b, board, JSON_INDENT(2)), 0);
    json_decref(b);
}

static void start(it_proc_t *p)
{
    const char *args[] = {"--board", board, "--tcp", "0", "--log-level", "warn", NULL};
    ck_assert_msg(it_start(p, args), "mcpsim did not start (exit %d)", p->status);
}

/* The byte cycle c writes at position i of its chunk. */
static int pattern(int c, int i)
{
    return (c * 37 + i * 11 + 5) & 0xFF;
}

START_TEST(acknowledged_writes_survive_sigkill)
{
    snprintf(dir, sizeof dir, "/tmp/mcpsim-it-ee-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_board("ee.bin");
    int lost = 0;
    for (int c = 0; c <= CYCLES; c++) {
        it_proc_t p;
        start(&p);
        it_conn_t *conn = it_tcp_connect(p.tcp_port);
        if (c > 0) { /* what the previous run acknowledged must be there */
            char params[96];
            snprintf(params, sizeof params, "{\"device\":80,\"offset\":%d,\"count\":%d}",
                     (c - 1) * CHUNK, CHUNK);
            json_t *r = it_call(conn, 1, "eeprom_read", params);
            json_t *bytes = json_object_get(it_result(r), "bytes");
            for (int i = 0; i < CHUNK; i++)
                if (json_integer_value(json_array_get(bytes, (size_t)i)) != pattern(c - 1, i)) {
                    lost++;
                    break;
                }
            json_decref(r);
        }
        if (c < CYCLES) {
            char params[512];
            int n = snprintf(params, sizeof params, "{\"device\":80,\"offset\":%d,\"bytes\":[",
                             c * CHUNK);
            for (int i = 0; i < CHUNK; i++)
                n += snprintf(params + n, sizeof params - (size_t)n, "%s%d", i ? "," : "",
                              pattern(c, i));
            snprintf(params + n, sizeof params - (size_t)n, "]}");
            json_t *r = it_call(conn, 2, "eeprom_write", params);
            ck_assert_int_eq(json_integer_value(json_object_get(it_result(r), "written")), CHUNK);
            json_decref(r);
        }
        /* killed right after the acknowledgement: no exit handler runs */
        ck_assert_int_eq(it_stop(&p, SIGKILL, NULL), 128 + SIGKILL);
        it_conn_close(conn);
    }
    ck_assert_int_eq(lost, 0);
    char path[128];
    snprintf(path, sizeof path, "%s/ee.bin", dir);
    remove(path);
    remove(board);
    remove(dir);
}
END_TEST

START_TEST(an_unwritable_backing_file_stops_the_start)
{
    snprintf(dir, sizeof dir, "/tmp/mcpsim-it-ee-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_board("no-such-dir/ee.bin");
    it_proc_t p;
    const char *args[] = {"--board", board, "--tcp", "0", NULL};
    ck_assert(!it_start(&p, args));
    ck_assert_int_ne(p.status, 0);
    char *err = it_stderr(&p);
    /* file:line:col of the backing_file value, and the cause */
    char where[160];
    snprintf(where, sizeof where, "%s:", board);
    ck_assert_msg(strstr(err, where) != NULL, "no position in: %s", err);
    ck_assert_msg(strstr(err, "no-such-dir/ee.bin for writing: No such file or directory"),
                  "no cause in: %s", err);
    free(err);
    remove(p.err_path);
    remove(board);
    remove(dir);
}
END_TEST

static Suite *eeprom_suite(void)
{
    Suite *s = suite_create("it_eeprom");
    TCase *tc = tcase_create("durable");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, acknowledged_writes_survive_sigkill);
    tcase_add_test(tc, an_unwritable_backing_file_stops_the_start);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(eeprom_suite)
