/* test_sampling.c: the sampling engine on a virtual clock: ticks, rings, summaries, events. */
#include <inttypes.h>
#include "test_harness.h"

#if FW_WITH_SAMPLING

static fw_board_t board;
static fw_pin_def_t pins[4];
/* Room for the rings of the sensor (20), the button (8) and the fast pin (8). */
static fw_sample_slot_t store[36];

enum { P_SENSOR, P_BUTTON, P_LED, P_FAST };

/* A board with an ESP32-like ADC profile; tests adjust pins[] before start(). */
static void setup(void)
{
    harness_reset();
    memset(&board, 0, sizeof board);
    memset(pins, 0, sizeof pins);
    pins[P_SENSOR] = (fw_pin_def_t)TEST_PIN_SENSOR;
    pins[P_BUTTON] = (fw_pin_def_t)TEST_PIN_BUTTON;
    pins[P_LED] = (fw_pin_def_t){.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led"};
    pins[P_FAST] = (fw_pin_def_t){.number = 35,
                                  .type = FW_PIN_ADC_INPUT,
                                  .name = "fast",
                                  .sample_interval_ms = 10,
                                  .buffer_size = 8,
                                  .summary = true,
                                  .buffer = true};
    board = (fw_board_t){.device = "sampling-test",
                         .version = "1.0.0",
                         .platform = "test",
                         .pins = pins,
                         .pin_count = 4,
                         .adc_bits = 12,
                         .adc_ref_mv = 3300,
                         .adc_report = FW_ADC_REPORT_VOLTS,
                         .toolsets = fw_builtins,
                         .sample_store = store,
                         .sample_store_len = FW_ARRAY_LEN(store)};
}

static void start(void)
{
    harness_start(&board, &mock_hal_api);
}

static void poll_at(uint64_t t)
{
    mock.now = t;
    fw_device_poll(&dev);
}

/* Advances the clock to `until` in steps of `step`, polling after every step. */
static void run(uint64_t until, uint64_t step)
{
    while (mock.now + step <= until) poll_at(mock.now + step);
}

/* Sends one request and returns its "result" (owned by `reply` until the next call). */
static json_t *call(const char *req)
{
    rpc_send(req, strlen(req));
    json_t *result = json_object_get(reply, "result");
    ck_assert_msg(result != NULL, "no result in %s", out.buf);
    return result;
}

static const fw_pin_sampling_t *state(int idx)
{
    return fw_sampling_state(&dev, (uint8_t)idx);
}

/* Sample k (0 = oldest) of a pin's ring, which must hold it. */
static fw_sample_t sample(int idx, uint16_t k)
{
    fw_sample_t s;
    memset(&s, 0xA5, sizeof s);
    ck_assert_msg(fw_sampling_sample(&dev, (uint8_t)idx, k, &s), "pin %d has no sample %u", idx,
                  (unsigned)k);
    return s;
}

static bool has_sample(int idx, uint16_t k)
{
    fw_sample_t s;
    return fw_sampling_sample(&dev, (uint8_t)idx, k, &s);
}

/* ---------------------------------------------------------------- timing */

START_TEST(test_interval_gives_exact_ticks)
{
    pins[P_BUTTON].sample_interval_ms = 0;
    pins[P_FAST].sample_interval_ms = 0;
    start();
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 500);
    mock.pins[34].adc = 1234;
    run(5000, 100);
    const fw_pin_sampling_t *st = state(P_SENSOR);
    ck_assert_uint_eq(st->count, 10);
    ck_assert_uint_eq(st->ring_count, 10);
    ck_assert_uint_eq(st->missed, 0);
    ck_assert_uint_eq(mock.pins[34].adc_reads, 10);
    for (uint16_t k = 0; k < 10; k++) {
        fw_sample_t s = sample(P_SENSOR, k);
        ck_assert_uint_eq(s.seq, k + 1u);
        ck_assert_uint_eq(s.t_ms, 500u * (k + 1u));
        ck_assert_uint_eq(s.value, 1234);
    }
    ck_assert(!has_sample(P_SENSOR, 10));
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 5500);
}
END_TEST

START_TEST(test_poll_before_deadline_or_twice_takes_nothing)
{
    start();
    poll_at(499);
    ck_assert_uint_eq(state(P_SENSOR)->count, 0);
    poll_at(500);
    poll_at(500);
    poll_at(999);
    ck_assert_uint_eq(state(P_SENSOR)->count, 1);
    ck_assert_uint_eq(sample(P_SENSOR, 0).t_ms, 500);
}
END_TEST

/* Discrete events: jumping from deadline to deadline gives the same samples as fine steps. */
START_TEST(test_event_driven_clock_hits_every_deadline)
{
    start();
    while (fw_device_next_deadline(&dev) <= 10000) poll_at(fw_device_next_deadline(&dev));
    ck_assert_uint_eq(state(P_SENSOR)->count, 20);
    ck_assert_uint_eq(state(P_BUTTON)->count, 100);
    ck_assert_uint_eq(state(P_FAST)->count, 1000);
    ck_assert_uint_eq(state(P_SENSOR)->missed + state(P_BUTTON)->missed + state(P_FAST)->missed, 0);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 10010);
}
END_TEST

START_TEST(test_late_poll_takes_one_sample_and_counts_missed)
{
    pins[P_BUTTON].sample_interval_ms = 0;
    pins[P_FAST].sample_interval_ms = 0;
    start();
    poll_at(500);
    poll_at(2300); /* ticks 1000, 1500 and 2000 are due: one sample at 2000, two missed */
    const fw_pin_sampling_t *st = state(P_SENSOR);
    ck_assert_uint_eq(st->count, 2);
    ck_assert_uint_eq(st->missed, 2);
    fw_sample_t s = sample(P_SENSOR, 1);
    ck_assert_uint_eq(s.seq, 2);
    ck_assert_uint_eq(s.t_ms, 2000);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 2500); /* phase kept */
    poll_at(2500);
    ck_assert_uint_eq(sample(P_SENSOR, 2).t_ms, 2500);
    ck_assert_uint_eq(st->missed, 2);
    poll_at(3000); /* exactly on time again: nothing missed */
    ck_assert_uint_eq(st->missed, 2);
    ck_assert_uint_eq(st->count, 4);
}
END_TEST

START_TEST(test_phase_follows_init_time)
{
    mock.now = 120;
    pins[P_BUTTON].sample_interval_ms = 0;
    pins[P_FAST].sample_interval_ms = 0;
    start();
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 620);
    run(2000, 50);
    ck_assert_uint_eq(state(P_SENSOR)->count, 3);
    ck_assert_uint_eq(sample(P_SENSOR, 2).t_ms, 1620);
}
END_TEST

START_TEST(test_unsampled_pins_have_no_deadline)
{
    for (size_t i = 0; i < 4; i++) pins[i].sample_interval_ms = 0;
    pins[P_LED].sample_interval_ms = 100; /* an output is never sampled */
    start();
    ck_assert_uint_eq(fw_device_next_deadline(&dev), UINT64_MAX);
    run(1000, 100);
    for (int i = 0; i < 4; i++) {
        ck_assert(!fw_pin_sampled(&pins[i])); /* no sampling state at all */
        ck_assert(!has_sample(i, 0));
    }
    ck_assert_uint_eq(mock.pins[2].reads, 0);
    ck_assert_uint_eq(mock.pins[4].reads + mock.pins[34].adc_reads + mock.pins[35].adc_reads, 0);
}
END_TEST

START_TEST(test_digital_samples_read_gpio)
{
    start();
    mock.pins[4].level = true;
    run(300, 100);
    mock.pins[4].level = false;
    run(500, 100);
    const fw_pin_sampling_t *st = state(P_BUTTON);
    ck_assert_uint_eq(st->count, 5);
    ck_assert_uint_eq(st->sum, 3);
    ck_assert_uint_eq(st->latest, 0);
    ck_assert_uint_eq(st->min, 0);
    ck_assert_uint_eq(st->max, 1);
    ck_assert_uint_eq(sample(P_BUTTON, 2).value, 1);
    ck_assert_uint_eq(sample(P_BUTTON, 3).value, 0);
}
END_TEST

/* ---------------------------------------------------------------- ring */

START_TEST(test_ring_keeps_newest_in_order)
{
    start();
    for (uint32_t i = 1; i <= 21; i++) {
        mock.pins[35].adc = (uint16_t)(i * 7);
        poll_at(i * 10u);
    }
    const fw_pin_sampling_t *st = state(P_FAST);
    ck_assert_uint_eq(st->ring_count, 8);
    ck_assert_uint_eq(st->count, 21);
    for (uint16_t k = 0; k < 8; k++) {
        fw_sample_t s = sample(P_FAST, k);
        ck_assert_uint_eq(s.seq, 14u + k);
        ck_assert_uint_eq(s.value, (14u + k) * 7u);
        ck_assert_uint_eq(s.t_ms, (14u + k) * 10u);
    }
}
END_TEST

/* A client drains with since = next_since at irregular times and sometimes with a limit:
   every sample arrives once, in order, or is counted in exactly one gap. */
START_TEST(test_since_draining_without_gaps_or_overlaps)
{
    start();
    static const unsigned waits[] = {1, 3, 8, 9, 12, 2, 20, 5, 7, 1, 0, 30, 4, 8, 16};
    static const int limits[] = {0, 3, 0, 5, 0, 0, 2, 0};
    uint32_t since = 0, tick = 0, received = 0, gaps = 0;
    char req[160];
    for (size_t round = 0; round < 60; round++) {
        for (unsigned n = 0; n < waits[round % FW_ARRAY_LEN(waits)]; n++) {
            tick++;
            mock.pins[35].adc = (uint16_t)((tick * 13u) % 4096u);
            poll_at(tick * 10u);
        }
        int limit = limits[round % FW_ARRAY_LEN(limits)];
        if (limit)
            snprintf(req, sizeof req,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_pin_buffer\","
                     "\"params\":{\"pin\":35,\"since\":%" PRIu32 ",\"limit\":%d}}",
                     since, limit);
        else
            snprintf(req, sizeof req,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_pin_buffer\","
                     "\"params\":{\"pin\":\"fast\",\"since\":%" PRIu32 "}}",
                     since);
        json_t *r = call(req);
        uint32_t oldest = tick > 8 ? tick - 7 : (tick ? 1 : 0);
        uint32_t want_gap = oldest > since + 1 ? oldest - 1 - since : 0;
        ck_assert_int_eq(int_at(r, "gap"), want_gap);
        ck_assert_int_eq(int_at(r, "oldest_seq"), oldest);
        ck_assert_int_eq(int_at(r, "latest_seq"), tick);
        gaps += want_gap;
        json_t *samples = json_object_get(r, "samples");
        uint32_t expect = since + want_gap + 1;
        size_t i;
        json_t *s;
        json_array_foreach(samples, i, s)
        {
            uint32_t seq = (uint32_t)int_at(s, "seq");
            ck_assert_uint_eq(seq, expect++);
            ck_assert_int_eq(int_at(s, "t"), seq * 10);
            ck_assert_int_eq(int_at(s, "value"), (seq * 13) % 4096);
            received++;
        }
        size_t avail = tick - (since + want_gap);
        size_t want_n = limit && (size_t)limit < avail ? (size_t)limit : avail;
        ck_assert_uint_eq(json_array_size(samples), want_n);
        ck_assert(json_is_boolean(json_object_get(r, "more")));
        ck_assert(json_is_true(json_object_get(r, "more")) == (want_n < avail));
        ck_assert_int_eq(int_at(r, "next_since"), want_n ? expect - 1 : since);
        since = (uint32_t)int_at(r, "next_since");
    }
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"get_pin_buffer\","
             "\"params\":{\"pin\":35,\"since\":%" PRIu32 "}}",
             since);
    json_t *last = call(req);
    ck_assert_int_eq(int_at(last, "gap"), 0);
    received += (uint32_t)json_array_size(json_object_get(last, "samples"));
    ck_assert_int_eq(int_at(last, "next_since"), tick);
    ck_assert_uint_gt(gaps, 0);
    ck_assert_uint_eq(received + gaps, tick);
}
END_TEST

/* ---------------------------------------------------------------- summary */

START_TEST(test_summary_stays_exact_past_70000_samples)
{
    pins[P_SENSOR].sample_interval_ms = 1;
    pins[P_BUTTON].sample_interval_ms = 0;
    pins[P_FAST].sample_interval_ms = 0;
    start();
    uint64_t sum = 0;
    const uint32_t n = 70001;
    for (uint32_t i = 1; i <= n; i++) {
        uint16_t v = (uint16_t)((i * 7u + i / 3u) % 4096u);
        mock.pins[34].adc = v;
        sum += v;
        poll_at(i);
    }
    const fw_pin_sampling_t *st = state(P_SENSOR);
    ck_assert_uint_eq(st->count, n);
    ck_assert_uint_eq(st->sum, sum);
    uint64_t hundredths = (sum * 100 + n / 2) / n;
    json_t *r = call("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"get_pin_summary\","
                     "\"params\":{\"pin\":34}}");
    ck_assert_int_eq(int_at(r, "count"), n);
    char want[64];
    snprintf(want, sizeof want, "\"avg\":%" PRIu64 ".%02" PRIu64, hundredths / 100,
             hundredths % 100);
    ck_assert_msg(strstr(out.buf, want) != NULL, "%s not in %s", want, out.buf);
    ck_assert_int_eq(int_at(r, "min"), 0);
    ck_assert_int_eq(int_at(r, "max"), 4095);
    ck_assert_int_eq(int_at(r, "latest"), (n * 7u + n / 3u) % 4096u);
    ck_assert_int_eq(int_at(r, "missed"), 0);
}
END_TEST

/* ---------------------------------------------------------------- events */

static void adc_tick(uint16_t v)
{
    mock.pins[34].adc = v;
    poll_at(mock.now + 500);
}

START_TEST(test_adc_hysteresis_events)
{
    pins[P_BUTTON].sample_interval_ms = 0;
    start();
    static const uint16_t values[] = {500, 2000, 3000, 3500, 2000, 1001, 1000, 2999, 3100, 4000};
    for (size_t i = 0; i < FW_ARRAY_LEN(values); i++) adc_tick(values[i]);
    ck_assert_uint_eq(fw_event_count(&dev), 3);
    const fw_event_t *e = fw_event_at(&dev, 0);
    ck_assert_uint_eq(e->seq, 1);
    ck_assert_uint_eq(e->kind, FW_EVENT_RISING);
    ck_assert_uint_eq(e->value, 3000);
    ck_assert_uint_eq(e->t_ms, 1500);
    ck_assert_uint_eq(e->pin_index, P_SENSOR);
    e = fw_event_at(&dev, 1);
    ck_assert_uint_eq(e->seq, 2);
    ck_assert_uint_eq(e->kind, FW_EVENT_FALLING);
    ck_assert_uint_eq(e->value, 1000);
    ck_assert_uint_eq(e->t_ms, 3500);
    e = fw_event_at(&dev, 2);
    ck_assert_uint_eq(e->seq, 3);
    ck_assert_uint_eq(e->kind, FW_EVENT_RISING);
    ck_assert_uint_eq(e->value, 3100);
    ck_assert_ptr_null(fw_event_at(&dev, 3));
}
END_TEST

START_TEST(test_first_sample_only_primes)
{
    pins[P_BUTTON].sample_interval_ms = 0;
    start();
    adc_tick(3500); /* starts above: no event */
    ck_assert_uint_eq(fw_event_count(&dev), 0);
    adc_tick(900);
    ck_assert_uint_eq(fw_event_count(&dev), 1);
    ck_assert_uint_eq(fw_event_at(&dev, 0)->kind, FW_EVENT_FALLING);
}
END_TEST

START_TEST(test_no_events_when_disabled)
{
    pins[P_SENSOR].events = false;
    pins[P_BUTTON].sample_interval_ms = 0;
    start();
    static const uint16_t values[] = {0, 4000, 0, 4000};
    for (size_t i = 0; i < FW_ARRAY_LEN(values); i++) adc_tick(values[i]);
    ck_assert_uint_eq(fw_event_count(&dev), 0);
    ck_assert_uint_eq(state(P_SENSOR)->count, 4);
}
END_TEST

START_TEST(test_digital_edges)
{
    pins[P_SENSOR].sample_interval_ms = 0;
    start();
    static const bool levels[] = {true, true, false, false, true, false};
    for (size_t i = 0; i < FW_ARRAY_LEN(levels); i++) {
        mock.pins[4].level = levels[i];
        poll_at(mock.now + 100);
    }
    ck_assert_uint_eq(fw_event_count(&dev), 3);
    static const uint8_t kinds[] = {FW_EVENT_FALLING, FW_EVENT_RISING, FW_EVENT_FALLING};
    static const uint64_t times[] = {300, 500, 600};
    for (uint16_t k = 0; k < 3; k++) {
        const fw_event_t *e = fw_event_at(&dev, k);
        ck_assert_uint_eq(e->kind, kinds[k]);
        ck_assert_uint_eq(e->t_ms, times[k]);
        ck_assert_uint_eq(e->seq, k + 1u);
        ck_assert_uint_eq(e->value, kinds[k] == FW_EVENT_RISING ? 1 : 0);
        ck_assert_uint_eq(e->pin_index, P_BUTTON);
    }
}
END_TEST

START_TEST(test_queue_overflow_is_counted_and_reported)
{
    pins[P_SENSOR].sample_interval_ms = 0;
    start();
    const unsigned edges = FW_EVENT_QUEUE_MAX + 5;
    for (unsigned i = 0; i <= edges; i++) { /* the first sample primes */
        mock.pins[4].level = (i % 2) != 0;
        poll_at(mock.now + 100);
    }
    ck_assert_uint_eq(fw_event_count(&dev), FW_EVENT_QUEUE_MAX);
    ck_assert_uint_eq(fw_device_counters(&dev)->events_dropped, 5);
    ck_assert_uint_eq(fw_event_at(&dev, FW_EVENT_QUEUE_MAX - 1)->seq, FW_EVENT_QUEUE_MAX);
    json_t *r = call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_pin_events\"}");
    ck_assert_int_eq(int_at(r, "dropped"), 5);
    ck_assert_int_eq(int_at(r, "pending"), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "events")), FW_EVENT_QUEUE_MAX);
    ck_assert_uint_eq(fw_event_count(&dev), 0);
    /* the dropped events used their seqs: the next one shows the hole */
    mock.pins[4].level = !mock.pins[4].level;
    poll_at(mock.now + 100);
    ck_assert_uint_eq(fw_event_at(&dev, 0)->seq, edges + 1);
}
END_TEST

/* ---------------------------------------------------------------- sample storage */

/* The board supplies the rings' storage: one slot per buffered sample of every sampled,
   buffered input, in registry order. */
START_TEST(test_board_sample_slots_counts_sampled_buffered_inputs)
{
    ck_assert_uint_eq(fw_board_sample_slots(&board), 20 + 8 + 8);
    pins[P_BUTTON].buffer = false;       /* summary only */
    pins[P_FAST].sample_interval_ms = 0; /* buffered but never sampled */
    pins[P_LED].buffer = true;           /* an output is never sampled */
    pins[P_LED].buffer_size = 5;
    ck_assert_uint_eq(fw_board_sample_slots(&board), 20);
}
END_TEST

START_TEST(test_too_small_sample_store_refuses_the_board)
{
    board.sample_store_len = (uint16_t)(fw_board_sample_slots(&board) - 1);
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &mock), FW_ERR_NO_SPACE);
    board.sample_store_len = 0;
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &mock), FW_ERR_NO_SPACE);
    board.sample_store_len = (uint16_t)fw_board_sample_slots(&board); /* exactly enough */
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &mock), FW_OK);
    board.sample_store = NULL; /* a length without storage */
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &mock), FW_ERR_ARG);
    /* a board whose pins buffer nothing needs no store */
    for (size_t i = 0; i < FW_ARRAY_LEN(pins); i++) pins[i].buffer = false;
    board.sample_store_len = 0;
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &mock), FW_OK);
}
END_TEST

/* Sampling state is kept for sampled pins only, FW_SAMPLED_PINS_MAX of them. */
START_TEST(test_sampled_pins_are_bounded)
{
    static fw_pin_def_t many[FW_SAMPLED_PINS_MAX + 1];
    static char names[FW_SAMPLED_PINS_MAX + 1][8];
    ck_assert_uint_le(FW_SAMPLED_PINS_MAX + 1, FW_PINS_MAX);
    for (size_t i = 0; i < FW_ARRAY_LEN(many); i++) {
        snprintf(names[i], sizeof names[i], "in%zu", i);
        many[i] = (fw_pin_def_t){.number = (uint16_t)(10 + i),
                                 .type = FW_PIN_DIGITAL_INPUT,
                                 .name = names[i],
                                 .sample_interval_ms = 10,
                                 .summary = true};
    }
    board.pins = many;
    board.pin_count = FW_ARRAY_LEN(many);
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &mock), FW_ERR_NO_SPACE);
    board.pin_count = FW_SAMPLED_PINS_MAX; /* exactly enough */
    start();
    poll_at(10);
    for (uint8_t i = 0; i < FW_SAMPLED_PINS_MAX; i++) ck_assert_uint_eq(state(i)->count, 1);
    /* unsampled pins beside them take no sampling state */
    many[0].sample_interval_ms = 0;
    board.pin_count = FW_ARRAY_LEN(many);
    start();
    poll_at(mock.now + 10);
    ck_assert_uint_eq(state(FW_SAMPLED_PINS_MAX)->count, 1);
    ck_assert_uint_eq(mock.pins[10].reads, 1); /* read once, by the first start's poll */
}
END_TEST

/* Two buffered pins wrap their rings many times over in a store of exactly their size: each
   reads back only its own samples, and nothing is written past the rings. */
START_TEST(test_buffered_pins_share_the_store_without_overlap)
{
    static fw_sample_slot_t tight[20 + 8 + 4];
    memset(tight, 0x5A, sizeof tight);
    pins[P_BUTTON].sample_interval_ms = 0;
    pins[P_SENSOR].sample_interval_ms = 10; /* both every 10 ms */
    board.sample_store = tight;
    board.sample_store_len = 20 + 8;
    start();
    const fw_pin_sampling_t *sensor = state(P_SENSOR), *fast = state(P_FAST);
    ck_assert(sensor->ring_first + 20u <= fast->ring_first ||
              fast->ring_first + 8u <= sensor->ring_first);
    ck_assert_uint_le(sensor->ring_first + 20u, 28);
    ck_assert_uint_le(fast->ring_first + 8u, 28);
    for (uint32_t i = 1; i <= 50; i++) {
        mock.pins[34].adc = (uint16_t)(1000 + i);
        mock.pins[35].adc = (uint16_t)(3000 + i);
        poll_at(i * 10u);
    }
    ck_assert_uint_eq(sensor->ring_count, 20);
    ck_assert_uint_eq(fast->ring_count, 8);
    for (uint16_t k = 0; k < 20; k++) {
        fw_sample_t s = sample(P_SENSOR, k);
        ck_assert_uint_eq(s.seq, 31u + k);
        ck_assert_uint_eq(s.value, 1031u + k);
        ck_assert_uint_eq(s.t_ms, (31u + k) * 10u);
    }
    for (uint16_t k = 0; k < 8; k++) {
        fw_sample_t s = sample(P_FAST, k);
        ck_assert_uint_eq(s.seq, 43u + k);
        ck_assert_uint_eq(s.value, 3043u + k);
        ck_assert_uint_eq(s.t_ms, (43u + k) * 10u);
    }
    for (size_t i = 28; i < FW_ARRAY_LEN(tight); i++) {
        ck_assert_uint_eq(tight[i].value, 0x5A5A);
        ck_assert_uint_eq(tight[i].t_lo, 0x5A5A);
        ck_assert_uint_eq(tight[i].t_hi, 0x5A5A);
    }
}
END_TEST

/* Slots keep 32 bits of time: read back next to the clock, times past 2^32 ms (49.7 days) come
   out whole, as do the events' times. */
START_TEST(test_times_past_32_bits_read_back_whole)
{
    pins[P_BUTTON].sample_interval_ms = 0;
    pins[P_FAST].sample_interval_ms = 0;
    const uint64_t boot = (1ull << 32) - 1200;
    mock.now = boot;
    start();
    static const uint16_t values[] = {500, 3500, 500, 3500};
    for (size_t i = 0; i < FW_ARRAY_LEN(values); i++) adc_tick(values[i]);
    for (uint16_t k = 0; k < 4; k++)
        ck_assert_uint_eq(sample(P_SENSOR, k).t_ms, boot + 500u * (k + 1u));
    ck_assert_uint_gt(sample(P_SENSOR, 3).t_ms, 1ull << 32);
    ck_assert_uint_eq(fw_event_count(&dev), 3);
    const fw_event_t *e = fw_event_at(&dev, 2);
    ck_assert_uint_eq(e->t_ms, (uint32_t)(boot + 2000));
    ck_assert_uint_eq(fw_event_time(&dev, e), boot + 2000);
    ck_assert_uint_eq(fw_event_time(&dev, fw_event_at(&dev, 0)), boot + 1000);
}
END_TEST

/* ---------------------------------------------------------------- read errors */

START_TEST(test_read_errors_are_counted_and_store_nothing)
{
    pins[P_BUTTON].sample_interval_ms = 0;
    pins[P_FAST].sample_interval_ms = 0;
    start();
    mock.pins[34].adc = 100;
    adc_tick(100);
    mock.pins[34].adc_fail = FW_ERR_ADC;
    adc_tick(100);
    adc_tick(100);
    adc_tick(100);
    mock.pins[34].adc_fail = FW_OK;
    adc_tick(200);
    const fw_pin_sampling_t *st = state(P_SENSOR);
    ck_assert_uint_eq(st->read_errors, 3);
    ck_assert_uint_eq(st->count, 2);
    ck_assert_uint_eq(st->ring_count, 2);
    ck_assert_uint_eq(st->missed, 0);
    fw_sample_t s = sample(P_SENSOR, 1);
    ck_assert_uint_eq(s.seq, 2);
    ck_assert_uint_eq(s.t_ms, 2500);
    ck_assert_uint_eq(s.value, 200);
    json_t *r = call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_pin_summary\","
                     "\"params\":{\"pin\":\"sensor\"}}");
    ck_assert_int_eq(int_at(r, "read_errors"), 3);
}
END_TEST

START_TEST(test_digital_read_errors)
{
    pins[P_SENSOR].sample_interval_ms = 0;
    pins[P_FAST].sample_interval_ms = 0;
    start();
    mock.gpio_fail = FW_ERR_HW;
    run(500, 100);
    ck_assert_uint_eq(state(P_BUTTON)->read_errors, 5);
    ck_assert_uint_eq(state(P_BUTTON)->count, 0);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 600);
}
END_TEST

/* ---------------------------------------------------------------- ADC scaling */

START_TEST(test_adc_to_mv_truncates_as_mcpu)
{
    ck_assert_uint_eq(fw_adc_to_mv(&board, 2048), 1650); /* 1650.40 */
    ck_assert_uint_eq(fw_adc_to_mv(&board, 4095), 3300);
    ck_assert_uint_eq(fw_adc_to_mv(&board, 0), 0);
    ck_assert_uint_eq(fw_adc_to_mv(&board, 1), 0); /* 0.806 truncated */
    ck_assert_uint_eq(fw_adc_to_mv(&board, 2), 1); /* 1.61 truncated */
    fw_board_t avr = board;
    avr.adc_bits = 10;
    avr.adc_ref_mv = 5000;
    ck_assert_uint_eq(fw_adc_to_mv(&avr, 512), 2502); /* 2502.44 */
    ck_assert_uint_eq(fw_adc_to_mv(&avr, 1023), 5000);
    avr.adc_ref_mv = 3300;
    ck_assert_uint_eq(fw_adc_to_mv(&avr, 512), 1651); /* 1651.61 truncated, as MCP/U */
}
END_TEST

static const char *scaled(const fw_board_t *b, uint32_t raw)
{
    static fw_jw_t w;
    cap_reset(&out);
    fw_jw_init(&w, cap_sink(&out));
    fw_jw_obj_begin(&w);
    fw_adc_write_scaled(&w, b, raw);
    fw_jw_obj_end(&w);
    ck_assert_int_eq(fw_jw_flush(&w), FW_OK);
    return out.buf;
}

START_TEST(test_adc_write_scaled_per_profile)
{
    ck_assert_str_eq(scaled(&board, 2048), "{\"volts\":1.65}");
    ck_assert_str_eq(scaled(&board, 4095), "{\"volts\":3.30}");
    ck_assert_str_eq(scaled(&board, 0), "{\"volts\":0.00}");
    fw_board_t avr = board;
    avr.adc_bits = 10;
    avr.adc_ref_mv = 5000;
    avr.adc_report = FW_ADC_REPORT_MV;
    ck_assert_str_eq(scaled(&avr, 512), "{\"mv\":2502}");
}
END_TEST

static Suite *sampling_suite(void)
{
    Suite *s = suite_create("sampling");
    TCase *t = tcase_create("timing");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_interval_gives_exact_ticks);
    tcase_add_test(t, test_poll_before_deadline_or_twice_takes_nothing);
    tcase_add_test(t, test_event_driven_clock_hits_every_deadline);
    tcase_add_test(t, test_late_poll_takes_one_sample_and_counts_missed);
    tcase_add_test(t, test_phase_follows_init_time);
    tcase_add_test(t, test_unsampled_pins_have_no_deadline);
    tcase_add_test(t, test_digital_samples_read_gpio);
    suite_add_tcase(s, t);
    t = tcase_create("ring_and_summary");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_set_timeout(t, 30);
    tcase_add_test(t, test_ring_keeps_newest_in_order);
    tcase_add_test(t, test_since_draining_without_gaps_or_overlaps);
    tcase_add_test(t, test_summary_stays_exact_past_70000_samples);
    suite_add_tcase(s, t);
    t = tcase_create("storage");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_board_sample_slots_counts_sampled_buffered_inputs);
    tcase_add_test(t, test_too_small_sample_store_refuses_the_board);
    tcase_add_test(t, test_sampled_pins_are_bounded);
    tcase_add_test(t, test_buffered_pins_share_the_store_without_overlap);
    tcase_add_test(t, test_times_past_32_bits_read_back_whole);
    suite_add_tcase(s, t);
    t = tcase_create("events");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_adc_hysteresis_events);
    tcase_add_test(t, test_first_sample_only_primes);
    tcase_add_test(t, test_no_events_when_disabled);
    tcase_add_test(t, test_digital_edges);
    tcase_add_test(t, test_queue_overflow_is_counted_and_reported);
    suite_add_tcase(s, t);
    t = tcase_create("errors_and_scaling");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_read_errors_are_counted_and_store_nothing);
    tcase_add_test(t, test_digital_read_errors);
    tcase_add_test(t, test_adc_to_mv_truncates_as_mcpu);
    tcase_add_test(t, test_adc_write_scaled_per_profile);
    suite_add_tcase(s, t);
    return s;
}

#else /* !(FW_WITH_SAMPLING) */

/* A build without sampling: a board that samples is refused (not silently left unsampled),
   nothing has a deadline, and the pin buffer tools do not exist. */
START_TEST(test_feature_is_off)
{
    static const fw_pin_def_t sampled[] = {
        {.number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor", .sample_interval_ms = 500}};
    static const fw_pin_def_t plain[] = {
        {.number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor"}};
    fw_board_t b = {.device = "no-sampling",
                    .version = "1",
                    .platform = "mock",
                    .pins = sampled,
                    .pin_count = 1,
                    .adc_bits = 12,
                    .adc_ref_mv = 3300,
                    .toolsets = fw_builtins};
    ck_assert(!FW_WITH_SAMPLING);
    harness_reset();
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &mock), FW_ERR_UNSUPPORTED);
    b.pins = plain;
    harness_start(&b, &mock_hal_api);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), UINT64_MAX);
    mock.now = 10000;
    fw_device_poll(&dev);
    ck_assert_uint_eq(mock.pins[34].adc_reads, 0);
    rpc_error("get_pin_summary", "{'pin':34}", FW_RPC_METHOD_NOT_FOUND);
    rpc_error("get_pin_events", NULL, FW_RPC_METHOD_NOT_FOUND);
    ck_assert_uint_eq(fw_board_sample_slots(&b), 0);
    harness_teardown();
}
END_TEST

static Suite *sampling_suite(void)
{
    Suite *s = suite_create("sampling");
    TCase *t = tcase_create("feature_off");
    tcase_add_test(t, test_feature_is_off);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(sampling_suite)
