/* bench_core.c: throughput of the firmware core on the mock HAL (not a test; tools/bench-core).
   Usage: bench_core N [K] feeds N messages of the mix (or only its K-th message) and prints
   key=value results. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fw_builtins.h"
#include "fw_device.h"
#include "fw_json.h"
#include "mock_hal.h"

/* One message of the mix: the line fed (without newline), its JSON-RPC calls, and what the reply
   must contain, so the benchmark never silently measures an unexpected error path. */
typedef struct bench_msg {
    const char *line;
    unsigned calls;
    const char *expect;
} bench_msg_t;

static const bench_msg_t mix[] = {
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_info\"}", 1, "\"result\""},
    {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"list_tools\"}", 1, "\"result\""},
    {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"gpio_write\",\"params\":{\"pin\":2,\"value\":true}"
     "}",
     1, "\"result\""},
    {"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"gpio_read\",\"params\":{\"pin\":2}}", 1,
     "\"result\""},
    {"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"adc_read\",\"params\":{\"pin\":34}}", 1,
     "\"result\""},
    {"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"pwm_write\",\"params\":{\"pin\":18,\"duty\":128}}",
     1, "\"result\""},
    {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"gpio_write\",\"params\":{\"pin\":2,\"value\":"
     "\"on\"}}",
     1, "-32602"},
    {"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"gpio_read\",\"params\":{\"pin\":", 1, "-32700"},
#if FW_WITH_BATCH
    {"[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"gpio_read\",\"params\":{\"pin\":2}},"
     "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"adc_read\",\"params\":{\"pin\":34}},"
     "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"get_info\"}]",
     3, "\"id\":11"},
#endif
};
#define MIX_LEN (sizeof mix / sizeof mix[0])

/* Kinds measured alone only (K = MIX_LEN + 1...), outside the mix: an MCP tools/call, in a
   session that initialize opened first (so the figure is the call's, as an MCP client sends it
   over any transport). */
static const bench_msg_t extra[] = {
#if FW_WITH_MCP
    {"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":"
     "\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":true}}}",
     1, "\"structuredContent\""},
#endif
    {NULL, 0, NULL},
};
#define EXTRA_LEN (sizeof extra / sizeof extra[0] - 1)

#if FW_WITH_MCP
/* What an MCP client sends before its first call. */
static const bench_msg_t mcp_open[] = {
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
     "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}",
     1, "\"protocolVersion\":\"2025-11-25\""},
    {"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", 0, NULL},
};
#endif

static const fw_pin_def_t bench_pins[] = {
    {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led", .description = "Onboard LED"},
    {.number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor", .description = "Light sensor"},
    {.number = 18, .type = FW_PIN_PWM_OUTPUT, .name = "led_pwm", .description = "Dimmable LED"},
};

static const fw_board_t bench_board = {
    .device = "bench-demo",
    .version = "1.0.0",
    .platform = "bench",
    .pins = bench_pins,
    .pin_count = sizeof bench_pins / sizeof bench_pins[0],
    .adc_bits = 12,
    .adc_ref_mv = 3300,
    .adc_report = FW_ADC_REPORT_VOLTS,
    .toolsets = fw_builtins,
};

/* The discarding sink counts bytes; the capturing one keeps the last reply for the check. */
typedef struct bench_out {
    uint64_t bytes;
    char last[1 << 16];
    size_t last_len;
    int capture;
} bench_out_t;

static void out_write(void *ctx, const char *data, size_t len)
{
    bench_out_t *o = ctx;
    o->bytes += len;
    if (o->capture && o->last_len + len < sizeof o->last) {
        memcpy(o->last + o->last_len, data, len);
        o->last_len += len;
        o->last[o->last_len] = 0;
    }
}

static fw_device_t dev;
static mock_hal_t hal;
static fw_framer_t framer;
static bench_out_t out;

static void feed(const bench_msg_t *m)
{
    fw_device_feed(&dev, &framer, (const uint8_t *)m->line, strlen(m->line),
                   (fw_sink_t){out_write, &out});
    fw_device_feed(&dev, &framer, (const uint8_t *)"\n", 1, (fw_sink_t){out_write, &out});
}

/* Feeds the count messages of msgs once and checks their replies (none expected: no reply at
   all); returns 0 when all are as expected. */
static int check(const bench_msg_t *msgs, size_t count)
{
    int bad = 0;
    out.capture = 1;
    for (size_t i = 0; i < count; i++) {
        out.last_len = 0;
        out.last[0] = 0;
        feed(&msgs[i]);
        if (msgs[i].expect ? !strstr(out.last, msgs[i].expect) : out.last_len != 0) {
            fprintf(stderr, "bench_core: unexpected reply\n  sent: %s\n  got:  %s\n", msgs[i].line,
                    out.last);
            bad = 1;
        }
    }
    out.capture = 0;
    return bad;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000ul;
    /* Optional argv[2] = k: feed only message k of the mix (1..MIX_LEN), or the extra kind
       k - MIX_LEN, for a per-kind cost. */
    const bench_msg_t *msgs = mix;
    size_t first = 0, count = MIX_LEN;
    if (argc > 2) {
        unsigned long k = strtoul(argv[2], NULL, 10);
        if (k < 1 || k > MIX_LEN + EXTRA_LEN) {
            fprintf(stderr, "bench_core: message index must be 1..%zu\n", MIX_LEN + EXTRA_LEN);
            return 1;
        }
        if (k > MIX_LEN) msgs = extra, k -= MIX_LEN;
        first = k - 1;
        count = 1;
    }
    mock_hal_init(&hal);
    hal.pins[34].adc = 2048;
    fw_err_t err = fw_device_init(&dev, &bench_board, &mock_hal_api, &hal);
    if (err != FW_OK) {
        fprintf(stderr, "bench_core: fw_device_init failed: %d (%s)\n", (int)err, fw_err_str(err));
        return 1;
    }
    fw_framer_init(&framer);
    if (check(mix, MIX_LEN) != 0) return 2;
    if (msgs == extra) {
#if FW_WITH_MCP
        if (check(mcp_open, sizeof mcp_open / sizeof mcp_open[0]) != 0) return 2;
#endif
        if (check(&extra[first], 1) != 0) return 2;
    }

    out.bytes = 0;
    unsigned long calls = 0;
    double t0 = now_s();
    for (unsigned long i = 0; i < n; i++) {
        const bench_msg_t *m = &msgs[first + i % count];
        feed(m);
        calls += m->calls;
    }
    double secs = now_s() - t0;
    if (secs <= 0) secs = 1e-9;
    printf("messages=%lu calls=%lu seconds=%.6f msg_per_s=%.0f calls_per_s=%.0f bytes_out=%llu "
           "bytes_per_msg=%.1f\n",
           n, calls, secs, (double)n / secs, (double)calls / secs, (unsigned long long)out.bytes,
           n ? (double)out.bytes / (double)n : 0.0);
    return 0;
}
